/**
 * SIP calls across instances: two real server processes on one PostgreSQL, each with its own SIP
 * listener, and real SIP software as the far end. What a caller or carrier notices: a call whose
 * server is killed mid-call is hung up by the other server (BYE) once the dead one's lease has
 * lapsed, instead of staying silent until the phone gives up; and a ringing call placed through
 * one server is cancelled when the Cancel call request reaches the other.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { callRecordSchema } from "../../src/shared/call-records.ts";
import { ORPHANED_CALL_REASON } from "../../src/server/instances/instance-lease.ts";
import { startBaresip } from "../fakes/baresip.ts";
import { startFakeRealtime, type FakeRealtime } from "../fakes/fake-realtime.ts";
import { startServerProcess, type ServerProcess } from "../fakes/server-process.ts";
import { freePort, startSipp } from "../fakes/sipp.ts";
import { ringUntilCancelled } from "../fakes/sipp-scenarios.ts";
import { closeInOrder } from "../close.ts";
import { fetchPost, newAccount, signUp } from "../sign-up.ts";
import { createScratchDatabase, dropScratchDatabase, killServers, type ScratchDatabase } from "./scratch-database.ts";

const LEASE_MS = 1500;
const NUMBER = "+15550144";

let database: ScratchDatabase;
let fake: FakeRealtime;
let env: Record<string, string>;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  database = await createScratchDatabase("switchboard_sip_instances");
  fake = await startFakeRealtime({ apiKey: "sk-sip-instances" });
  env = {
    DATABASE_URL: database.url,
    APP_SECRET: "sip-instances-secret-0123456789abcdef0123",
    OPENAI_BASE_URL: fake.baseUrl,
    INSTANCE_LEASE_MS: String(LEASE_MS),
    DRAIN_TIMEOUT_MS: "2000",
    SIP_HOST: "127.0.0.1",
    SIP_PUBLIC_ADDRESS: "127.0.0.1",
  };
}, 60_000);

afterAll(async () => {
  await killServers(servers);
  await closeInOrder(fake);
  await dropScratchDatabase(database);
});

/** A server with SIP on a port of its own; `rtp` is its RTP range (two servers must not share one). */
async function start(rtp: string): Promise<ServerProcess & { sipPort: number }> {
  const sipPort = await freePort();
  const server = await startServerProcess({ ...env, SIP_PORT: String(sipPort), RTP_PORTS: rtp });
  servers.push(server);
  return Object.assign(server, { sipPort });
}

async function api<T>(server: ServerProcess, path: string, init: { method?: string; cookie: string; body?: unknown }, status = 200): Promise<T> {
  const res = await fetch(`${server.origin}${path}`, {
    method: init.method ?? "GET",
    headers: { origin: server.origin, cookie: init.cookie, ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text) as T;
}

/** An owner with the fake's key, an assistant, a trunk (calls from loopback; calls out to `outboundUri`) and a SIP number on it. */
async function sipLine(server: ServerProcess, outboundUri: string | null) {
  const { cookie } = await signUp(fetchPost(server.origin), newAccount("Grace Hopper", "sip-"));
  await api(server, "/api/credentials/openai_api_key", { method: "PUT", cookie, body: { value: fake.apiKey } });
  const assistant = await api<{ id: string }>(server, "/api/assistants", { method: "POST", cookie, body: { name: "Ava", instructions: "You are Ava.", first_message: "Hello, this is Ava." } }, 201);
  const trunk = await api<{ id: string }>(server, "/api/sip-trunks", { method: "POST", cookie, body: { name: "PBX", inbound_addresses: ["127.0.0.0/8"], outbound_uri: outboundUri } }, 201);
  const number = await api<{ id: string }>(server, "/api/phone-numbers", { method: "POST", cookie, body: { provider: "sip", sip_trunk_id: trunk.id, phone_number: NUMBER, assistant_id: assistant.id } }, 201);
  return { cookie, assistantId: assistant.id, numberId: number.id };
}

const recordOf = async (server: ServerProcess, cookie: string, id: string) => callRecordSchema.parse(await api(server, `/api/calls/${id}`, { cookie }));

it("a call whose server dies is hung up by the other server once the lease lapses: the caller sees a BYE", async () => {
  const one = await start("41000-41099");
  const two = await start("41100-41199");
  const line = await sipLine(one, null);
  const phone = await startBaresip();
  try {
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${one.sipPort}`);
    await phone.event("CALL_ESTABLISHED");
    const list = async () => (await api<{ data: { id: string; end_time: string | null }[] }>(two, "/api/calls", { cookie: line.cookie })).data;
    await expect.poll(async () => (await list()).length, { timeout: 10_000 }).toBe(1);
    const [call] = await list();
    expect(call!.end_time).toBeNull();

    // Server one dies without a word: no BYE from it.
    one.kill("SIGKILL");
    expect(await one.exited).toBeNull();
    // Server two's sweep closes the record and hangs the call up.
    await phone.event("CALL_CLOSED", 8 * LEASE_MS);
    expect((await recordOf(two, line.cookie, call!.id)).ended_reason).toBe(ORPHANED_CALL_REASON);
    expect(two.logs.some((l) => l.includes("hung up a call whose server stopped"))).toBe(true);
  } finally {
    await phone.stop();
  }
}, 90_000);

it("a ringing call placed through one server is cancelled from the other", async () => {
  const sipp = await startSipp({ target: "", scenario: ringUntilCancelled, timeoutS: 30 });
  const one = await start("41200-41299");
  const two = await start("41300-41399");
  const line = await sipLine(one, `sip:127.0.0.1:${sipp.port}`);
  const placed = await api<{ id: string }>(one, "/api/calls/outbound", { method: "POST", cookie: line.cookie, body: { assistant_id: line.assistantId, phone_number_id: line.numberId, to: "+15557650199" } }, 201);
  await expect.poll(async () => (await recordOf(two, line.cookie, placed.id)).twilio_status, { timeout: 10_000 }).toBe("ringing");
  const cancelled = await api<{ ended_reason: string }>(two, `/api/calls/${placed.id}/cancel`, { method: "POST", cookie: line.cookie });
  expect(cancelled.ended_reason).toBe("Cancelled");
  // The trunk was told: SIPp's scenario ends only once our CANCEL came.
  const run = await sipp.done;
  expect(run.code, run.log).toBe(0);
}, 90_000);
