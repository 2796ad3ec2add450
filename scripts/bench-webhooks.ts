/**
 * `npm run bench:webhooks`: N events (default 1,000) through the whole delivery path — stored,
 * queued on the job queue, taken by a worker, signed and POSTed over a real socket to a receiver
 * on 127.0.0.1 that verifies each with the `standardwebhooks` package and answers after 50 ms.
 * Prints p50/p99 from the event's emit (its `timestamp`) to receipt, throughput, CPU and memory.
 * The events are `webhook.test` (POST /api/webhooks/:id/test): after `emit` they take the same
 * path as call.ended. Embedded PostgreSQL in memory. Options: --events N (at most 5000).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { startWebhookReceiver } from "../tests/fakes/webhook-receiver.ts";
import { injectPost, newAccount, signUp } from "../tests/sign-up.ts";

const args = process.argv.slice(2);
const at = args.indexOf("--events");
const EVENTS = Math.min(5000, Math.max(1, at >= 0 ? Number(args[at + 1]) || 1000 : 1000));

const database = await openDatabase({ kind: "pglite" });
await database.migrate();
const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: mkdtempSync(join(tmpdir(), "bench-webhooks-")), TOOL_ALLOWED_HOSTS: "127.0.0.1", JOB_POLL_INTERVAL_MS: "500" });
const app = await buildApp({ ...config, appSecret: "bench-webhooks-secret-0123456789abcdef0123" }, { database });
await app.ready();
const receiver = await startWebhookReceiver({ delayMs: 50 });
const { cookie } = await signUp(injectPost(app), newAccount("Bench Hooks"));
const created = await app.inject({ method: "POST", url: "/api/webhooks", headers: { cookie }, payload: { url: receiver.url, events: ["call.ended"] } });
const endpoint = created.json() as { id: string; secret: string };
receiver.secret = endpoint.secret;

const cpuBefore = process.cpuUsage();
const started = Date.now();
for (let i = 0; i < EVENTS; i += 20) {
  await Promise.all(Array.from({ length: Math.min(20, EVENTS - i) }, () => app.inject({ method: "POST", url: `/api/webhooks/${endpoint.id}/test`, headers: { cookie } })));
}
const emitted = Date.now();
while (receiver.requests.filter((r) => r.status === 200).length < EVENTS && Date.now() - started < 600_000) await new Promise((r) => setTimeout(r, 100));
const done = Date.now();
const cpu = process.cpuUsage(cpuBefore);

const ok = receiver.requests.filter((r) => r.status === 200);
// The receiver keeps the body's data; the emit time is the envelope's timestamp, so read it from the stored delivery rows instead.
const rows = await database.sql("SELECT message_id, payload FROM webhook_deliveries");
const emitAt = new Map(rows.rows.map((r) => [String(r.message_id), Date.parse((JSON.parse(String(r.payload)) as { timestamp: string }).timestamp)]));
const latencies = ok.map((r) => r.at - (emitAt.get(r.id) ?? r.at)).sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
console.log(`bench:webhooks — ${EVENTS} events, receiver answering in 50 ms, embedded PostgreSQL`);
console.log(`  delivered ${ok.length}/${EVENTS} (all verified: ${receiver.requests.every((r) => r.verified)}), ${receiver.requests.length} requests`);
console.log(`  emit → receipt: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)} ms`);
console.log(`  emitting took ${emitted - started} ms; all received after ${done - started} ms (${Math.round((ok.length / (done - started)) * 1000)} deliveries/s)`);
console.log(`  CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms, RSS ${Math.round(process.memoryUsage().rss / 1048576)} MB`);
await receiver.close();
await app.close();
await database.close();
