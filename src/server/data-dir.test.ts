import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUILT_SERVER } from "../../scripts/build-server.ts";
import { secureDataDir } from "./data-dir.ts";

/** Nothing in DATA_DIR is readable by other local users. */

const mode = (path: string) => statSync(path).mode & 0o777;

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? [join(dir, e.name), ...allFiles(join(dir, e.name))] : [join(dir, e.name)]));
}

describe("DATA_DIR permissions", () => {
  let server: ChildProcess | undefined;
  afterAll(() => {
    if (server?.pid && server.exitCode === null) server.kill("SIGKILL");
  });

  it("takes group and other access away from an existing folder and reports what it changed", () => {
    const dir = mkdtempSync(join(tmpdir(), "switchboard-perm-"));
    mkdirSync(join(dir, "objects/recordings"), { recursive: true, mode: 0o755 });
    writeFileSync(join(dir, "objects/recordings/call.wav"), "RIFF", { mode: 0o644 });
    writeFileSync(join(dir, "private"), "x", { mode: 0o600 });
    chmodSync(dir, 0o755);
    const fixed = secureDataDir(dir);
    expect(fixed).toContain(join(dir, "objects/recordings/call.wav"));
    expect(fixed).not.toContain(join(dir, "private"));
    expect(mode(dir)).toBe(0o700);
    expect(mode(join(dir, "objects/recordings"))).toBe(0o700);
    expect(mode(join(dir, "objects/recordings/call.wav"))).toBe(0o600);
    expect(secureDataDir(dir)).toEqual([]);
  });

  it("the real server starts with a 0700 folder whose database and secret files are 0600", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchboard-start-"));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "left-over.log"), "x", { mode: 0o644 });
    server = spawn(process.execPath, [BUILT_SERVER], {
      env: { ...process.env, NODE_ENV: "development", DATA_DIR: dir, PORT: "0", LOG_LEVEL: "info", DATABASE_URL: "", APP_SECRET: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 150_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("Server listening")) {
          clearTimeout(timer);
          resolve();
        }
      };
      server!.stdout!.on("data", onData);
      server!.stderr!.on("data", onData);
      server!.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${output}`)));
    });
    expect(output).toMatch(/Took group\/other access away from 2 path/);
    expect(mode(dir)).toBe(0o700);
    const paths = allFiles(dir);
    expect(paths.some((p) => p.includes("pglite"))).toBe(true);
    const loose = paths.filter((p) => (mode(p) & 0o077) !== 0).map((p) => `${p} ${mode(p).toString(8)}`);
    expect(loose).toEqual([]);
    // Whatever a library writes later with modes of its own sits in folders only we can enter.
    expect(paths.filter((p) => statSync(p).isDirectory() && (mode(p) & 0o077) !== 0)).toEqual([]);
    expect(mode(join(dir, "app-secret"))).toBe(0o600);
    server.kill("SIGTERM");
  }, 180_000);
});
