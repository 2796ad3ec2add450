import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/** A real process: SIGTERM while closing hangs (a stalled database) still ends within the limit. */
describe("shutdown", () => {
  it("exits after the grace period when closing hangs", async () => {
    const module = fileURLToPath(new URL("./shutdown.ts", import.meta.url));
    const script = `
      const { onShutdown } = await import(${JSON.stringify(module)});
      onShutdown({ info: (m) => console.log(m), error: () => {} }, () => new Promise(() => {}), 400);
      setInterval(() => {}, 1000);
      console.log("ready");
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child not ready: ${out}`)), 20_000);
      child.stdout.on("data", () => {
        if (out.includes("ready")) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const sentAt = Date.now();
    child.kill("SIGTERM");
    const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    expect(code).toBe(1);
    expect(out).toContain("SIGTERM received");
    expect(Date.now() - sentAt).toBeLessThan(10_000);
  }, 40_000);

  it("logs an unhandled rejection with its stack and keeps serving; an uncaught exception still closes it", async () => {
    const module = fileURLToPath(new URL("./shutdown.ts", import.meta.url));
    const script = `
      const { onShutdown } = await import(${JSON.stringify(module)});
      onShutdown({ info: (m) => console.log(m), error: (o, m) => console.log(m, o.err?.stack ?? "") }, async () => console.log("closing"), 2000);
      setInterval(() => {}, 1000);
      process.stdin.on("data", (d) => {
        if (String(d).startsWith("reject")) Promise.reject(new Error("lost rejection"));
        if (String(d).startsWith("alive")) console.log("still serving");
        if (String(d).startsWith("throw")) setImmediate(() => { throw new Error("uncaught throw"); });
      });
      console.log("ready");
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    await expect.poll(() => out, { timeout: 20_000 }).toContain("ready");
    child.stdin.write("reject\n");
    await expect.poll(() => out, { timeout: 5_000 }).toContain("lost rejection");
    expect(out).toMatch(/unhandled promise rejection.*\n?.*Error: lost rejection\n\s+at /);
    child.stdin.write("alive\n");
    await expect.poll(() => out, { timeout: 5_000 }).toContain("still serving");
    expect(out).not.toContain("closing");
    child.stdin.write("throw\n");
    expect(await exited).toBe(1);
    expect(out).toContain("closing after an uncaught error");
    expect(out).toContain("closing");
  }, 40_000);
});
