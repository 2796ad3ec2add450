import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Convention 3 (docs/architecture.md): SQL only in `*.repo.ts`. Checked for the call path and
 * the code around it: the carriers, instances, the call engine and the tools module.
 */
const server = fileURLToPath(new URL(".", import.meta.url));
const CHECKED = ["carriers", "instances", "voice", "modules/tools"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".repo.ts") ? [path] : [];
  });
}

describe("SQL in repositories", () => {
  it("is written nowhere else in the call path", () => {
    const offenders = CHECKED.flatMap((dir) => sources(join(server, dir)))
      .filter((path) => /from "drizzle-orm/.test(readFileSync(path, "utf8")))
      .map((path) => relative(server, path));
    expect(offenders).toEqual([]);
  });
});
