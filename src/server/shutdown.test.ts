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
});
