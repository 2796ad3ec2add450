/**
 * A real Switchboard server process as `npm run serve` runs it (the built dist/server/main.js,
 * which the tests' global setup builds): its own DATA_DIR, configured only through the
 * environment, listening on a free loopback port. For tests of several instances sharing one
 * PostgreSQL.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILT_SERVER } from "../../scripts/build-server.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  readonly instanceId: string;
  /** Every log line so far (pino JSON), for diagnosing a failure. */
  readonly logs: string[];
  /** Resolves with the exit code (null when killed by a signal) once the process is gone. */
  readonly exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

export async function startServerProcess(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  // Node itself, not npm: a SIGKILL of npm would leave the server it started running.
  const child: ChildProcess = spawn(process.execPath, ["--enable-source-maps", BUILT_SERVER], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: "test",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "info",
      // One process per server unless a test asks for worker processes (WORKERS defaults to the cores).
      WORKERS: "1",
      DATA_DIR: mkdtempSync(join(tmpdir(), "switchboard-instance-")),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let origin = "";
  let instanceId = "";
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start in ${timeoutMs} ms:\n${logs.join("\n")}`)), timeoutMs);
    const onLine = (line: string) => {
      logs.push(line);
      const msg = parseMsg(line);
      origin ||= /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(msg)?.[1] ?? "";
      instanceId ||= /^Instance (\S+) \(lease/.exec(msg)?.[1] ?? "";
      if (origin && instanceId) {
        clearTimeout(timer);
        resolve();
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      let buffered = "";
      stream.on("data", (data: Buffer) => {
        buffered += data.toString();
        const lines = buffered.split("\n");
        buffered = lines.pop() ?? "";
        lines.filter(Boolean).forEach(onLine);
      });
    }
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before listening:\n${logs.join("\n")}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    origin,
    instanceId,
    logs,
    exited,
    kill: (signal) => void child.kill(signal),
  };
}

function parseMsg(line: string): string {
  try {
    const value = JSON.parse(line) as { msg?: unknown };
    return typeof value.msg === "string" ? value.msg : "";
  } catch {
    return line;
  }
}
