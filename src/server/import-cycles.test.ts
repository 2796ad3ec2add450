/**
 * No import cycle among the server's modules (type-only imports included: a cycle of types is
 * still a knot to untie before a file can be understood or moved on its own). Relative imports of
 * every non-test file under src/server are followed into src/; packages are leaves.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const SRC = resolve(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.(test|spec)\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/**
 * `import … from "x"`, `export … from "x"` (statements start a line; `[^;]*` spans a multi-line
 * list of names), `import "x"` and `import("x")`.
 */
const IMPORT = /^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']|^\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/gm;

/** The files under `within` that `file` imports or re-exports by a relative path. */
function importsOf(file: string, within: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(IMPORT)]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? "")
    .filter((name) => name.startsWith("."))
    .map((name) => resolve(dirname(file), name.replace(/\.js$/, ".ts")))
    .map((path) => [path, `${path}.ts`, `${path}.tsx`, join(path, "index.ts")].find((p) => /\.tsx?$/.test(p) && existsSync(p)) ?? path)
    .filter((path) => path.startsWith(within) && existsSync(path));
}

/** Every cycle found by one depth-first walk, each as the chain of files that closes it. */
function findCycles(roots: string[], within = SRC): string[][] {
  const cycles: string[][] = [];
  const done = new Set<string>();
  const stack: string[] = [];
  const visit = (file: string) => {
    const at = stack.indexOf(file);
    if (at >= 0) return void cycles.push([...stack.slice(at), file].map((f) => relative(within, f)));
    if (done.has(file)) return;
    stack.push(file);
    for (const next of importsOf(file, within)) visit(next);
    stack.pop();
    done.add(file);
  };
  roots.forEach(visit);
  return cycles;
}

describe("src/server imports", () => {
  it("form no cycle", () => {
    const roots = sourceFiles(join(SRC, "server"));
    expect(roots.length).toBeGreaterThan(100);
    expect(findCycles(roots)).toEqual([]);
  });

  it("would report a cycle made of type-only imports", () => {
    // The shape app.ts once had: a service naming a type from the root that registers it.
    const dir = mkdtempSync(join(tmpdir(), "cycles-"));
    try {
      writeFileSync(join(dir, "app.ts"), 'import { routes } from "./routes.ts";\nexport interface Ctx { n: number }\nexport const app = routes;\n');
      writeFileSync(join(dir, "routes.ts"), 'export { service as routes } from "./service.js";\n');
      writeFileSync(join(dir, "service.ts"), 'import type { Ctx } from "./app";\nexport const service = (ctx: Ctx) => ctx.n;\n');
      expect(findCycles([join(dir, "app.ts")], dir)).toEqual([["app.ts", "routes.ts", "service.ts", "app.ts"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
