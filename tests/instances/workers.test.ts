/**
 * `npm start`'s worker processes: a real server started with WORKERS=2 on a fresh PostgreSQL
 * database runs two instances on one port, restarts one that dies, and stops cleanly; with the
 * embedded database it stays one process.
 */
import { get } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServerProcess, type ServerProcess } from "../fakes/server-process.ts";
import { createScratchDatabase, dropScratchDatabase, killServers, type ScratchDatabase } from "./scratch-database.ts";

let database: ScratchDatabase;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createScratchDatabase("switchboard_workers");
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await dropScratchDatabase(database);
});

/** The instance that answered GET /api/health, over a connection of its own (as separate clients would). */
function healthInstance(origin: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(`${origin}/api/health`, { agent: false }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve((JSON.parse(body) as { instance: string }).instance));
    }).on("error", reject);
  });
}

/** The instances that answer `count` requests. */
async function instancesAnswering(origin: string, count: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < count; i++) seen.add(await healthInstance(origin));
  return seen;
}

interface InstanceLine {
  id: string;
  pid: number;
}

/** The "Instance <id> (lease …)" lines so far: one per instance that started listening. */
function instanceLines(server: ServerProcess): InstanceLine[] {
  return server.logs.flatMap((line) => {
    try {
      const { msg, pid } = JSON.parse(line) as { msg?: string; pid?: number };
      const id = /^Instance (\S+) \(lease/.exec(msg ?? "")?.[1];
      return id && pid ? [{ id, pid }] : [];
    } catch {
      return [];
    }
  });
}

async function until<T>(what: string, read: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("WORKERS on a PostgreSQL server", () => {
  it("runs two instances on one port, restarts a worker that dies, and stops on SIGTERM", async () => {
    const server = await startServerProcess({
      DATABASE_URL: database.url,
      APP_SECRET: "workers-test-secret-0123456789abcdef012345",
      WORKERS: "2",
      INSTANCE_LEASE_MS: "1500",
      DRAIN_TIMEOUT_MS: "1000",
    });
    servers.push(server);
    const [first, second] = await until("two workers listening", () => {
      const lines = instanceLines(server);
      return lines.length >= 2 ? lines : undefined;
    });
    expect(first.pid).not.toBe(second.pid);
    expect(first.id).not.toBe(second.id);
    // Connections are shared out among the workers: separate clients reach both.
    expect(await instancesAnswering(server.origin, 20)).toEqual(new Set([first.id, second.id]));

    process.kill(first.pid, "SIGKILL");
    const replacement = await until("a replacement worker", () => instanceLines(server)[2]);
    expect(replacement.pid).not.toBe(first.pid);
    expect(server.logs.some((line) => line.includes(`(pid ${first.pid}) was killed by SIGKILL; starting another`))).toBe(true);
    expect(await instancesAnswering(server.origin, 20)).toEqual(new Set([second.id, replacement.id]));

    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 120_000);
});

describe("WORKERS with the embedded database", () => {
  it("runs one process and says so", async () => {
    const server = await startServerProcess({ APP_SECRET: "workers-test-secret-0123456789abcdef012345", WORKERS: "2" });
    servers.push(server);
    expect(server.logs.some((line) => line.includes("Embedded database: one process"))).toBe(true);
    expect(await instancesAnswering(server.origin, 6)).toEqual(new Set([server.instanceId]));
    server.kill("SIGTERM");
    expect(await server.exited).toBe(0);
  }, 120_000);
});
