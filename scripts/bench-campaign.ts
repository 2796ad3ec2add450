/**
 * `npm run bench:campaign`: one campaign of N contacts (default 10,000) dialled by the real app
 * (embedded PostgreSQL in memory, the durable job queue, real sockets) against the fake Twilio
 * REST API and far end on 127.0.0.1 — in a child process, so the CPU measured is the app's
 * (dialler ticks, Calls.create, Twilio's status callbacks) — where nobody answers (each call
 * rings three steps of --step-ms, default 100 ms). Prints calls placed per second, the dial rate against the configured calls per
 * minute (and the busiest 60 s), the most calls at once the far end saw against the campaign's
 * limit, numbers dialled twice, the time to finish, and the app's CPU and memory.
 * Options: --contacts N (at most 100,000), --cpm N (calls per minute, default 3000; at most 6000,
 * the most a campaign accepts), --concurrent N (default 200), --step-ms N (the far end's pace).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { phoneNumbers } from "../src/server/db/schema.ts";
import { createCredentialsService } from "../src/server/modules/credentials/credentials.service.ts";
import type { Campaign } from "../src/shared/campaigns.ts";
import { injectPost, newAccount, signUp } from "../tests/sign-up.ts";
import { child, freePort } from "./bench-process.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number, max: number) => {
  const at = args.indexOf(`--${name}`);
  return Math.min(max, Math.max(1, at >= 0 ? Number(args[at + 1]) || fallback : fallback));
};
const CONTACTS = option("contacts", 10_000, 100_000);
const CPM = option("cpm", 3000, 6000);
const STEP_MS = option("step-ms", 100, 10_000);
const CONCURRENT = option("concurrent", 200, 1000);
const ACCOUNT_SID = `AC${"3".repeat(32)}`;
const AUTH_TOKEN = "bench-campaign-auth-token-0123456789";
const OURS = "+15550100";

const fakes = child("bench-campaign-fakes.ts");
const next = <T>(kind: string) => new Promise<T>((resolve) => {
  const on = (m: { kind: string }) => {
    if (m.kind !== kind) return;
    fakes.off("message", on);
    resolve(m as T);
  };
  fakes.on("message", on);
});
await next("up");
fakes.send({ kind: "start", accountSid: ACCOUNT_SID, authToken: AUTH_TOKEN, number: OURS, stepMs: STEP_MS });
const rest = await next<{ baseUrl: string }>("ready");
const database = await openDatabase({ kind: "pglite" });
await database.migrate();
const port = await freePort();
const origin = `http://127.0.0.1:${port}`;
const config = loadConfig({
  NODE_ENV: "test",
  LOG_LEVEL: process.env["BENCH_LOG_LEVEL"] ?? "silent",
  DATA_DIR: mkdtempSync(join(tmpdir(), "bench-campaign-")),
  PUBLIC_URL: origin,
  TWILIO_API_BASE: rest.baseUrl,
  JOB_POLL_INTERVAL_MS: "500",
});
const app = await buildApp({ ...config, appSecret: "bench-campaign-secret-0123456789abcdef012" }, { database });
await app.listen({ port, host: "127.0.0.1" });
fakes.send({ kind: "origin", origin });
await next("attached");

const { cookie, organizationId } = await signUp(injectPost(app), newAccount("Bench Campaign", "bench-campaign-"));
const credentials = createCredentialsService(app.ctx);
// Never used (nobody answers), but a call needs the account's OpenAI key to be placed.
await credentials.save(organizationId, "openai_api_key", "sk-bench-campaign");
await credentials.save(organizationId, "twilio_account_sid", ACCOUNT_SID);
await credentials.save(organizationId, "twilio_auth_token", AUTH_TOKEN);
const send = (method: "GET" | "POST" | "PUT", url: string, payload?: object) => app.inject({ method, url, headers: { cookie }, ...(payload ? { payload } : {}) });
const assistant = await send("POST", "/api/assistants", { name: "Bench", instructions: "Remind {{first_name}}.", first_message: null });
const [number] = await database.db.insert(phoneNumbers).values({ organizationId, phoneNumber: OURS, countryCode: "US", status: "active" }).returning({ id: phoneNumbers.id });
await send("PUT", "/api/settings/calls", { max_concurrent_calls: 1000 });
const csv = ["phone,first_name", ...Array.from({ length: CONTACTS }, (_, i) => `+1555${String(1_000_000 + i).padStart(7, "0")},P${i}`)].join("\n");
const created = await send("POST", "/api/campaigns", {
  name: "Bench",
  assistant_id: (assistant.json() as { id: string }).id,
  phone_number_id: number!.id,
  contacts_csv: csv,
  max_concurrent_calls: CONCURRENT,
  calls_per_minute: CPM,
  schedule: { timezone: "UTC", windows: [1, 2, 3, 4, 5, 6, 7].map((d) => ({ days: [d], start: "00:00", end: "23:59" })) },
});
if (created.statusCode !== 201) throw new Error(`campaign not created: ${created.body}`);
const id = (created.json() as { id: string }).id;

const cpuBefore = process.cpuUsage();
let rssPeak = process.memoryUsage().rss;
const started = Date.now();
await send("POST", `/api/campaigns/${id}/start`);
let status = "";
// Bounded: a run that has not finished in 15 minutes reports what it did.
while (status !== "completed" && Date.now() - started < 15 * 60_000) {
  await new Promise((r) => setTimeout(r, 250));
  rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  status = ((await send("GET", `/api/campaigns/${id}`)).json() as Campaign).status;
}
const done = Date.now();
const cpu = process.cpuUsage(cpuBefore);
const campaign = (await send("GET", `/api/campaigns/${id}`)).json() as Campaign;
fakes.send({ kind: "report" });
const report = await next<{ placed: [string, number][]; peak: number }>("report");

const placed = report.placed.map(([to, at]) => ({ to, at }));
const perNumber = new Map<string, number>();
for (const p of placed) perNumber.set(p.to, (perNumber.get(p.to) ?? 0) + 1);
// The rate over the dialling itself: first call placed to last.
const dialSpanS = placed.length > 1 ? (placed.at(-1)!.at - placed[0]!.at) / 1000 : Number.NaN;
const perSecond = (placed.length - 1) / dialSpanS;
const achieved = perSecond * 60;
// The busiest 60 s window of placed calls (what "calls per minute" limits).
let busiestMinute = 0;
for (let i = 0, j = 0; i < placed.length; i += 1) {
  while (placed[i]!.at - placed[j]!.at >= 60_000) j += 1;
  busiestMinute = Math.max(busiestMinute, i - j + 1);
}
const seconds = (done - started) / 1000;
const cpuS = (cpu.user + cpu.system) / 1e6;
console.log(`bench:campaign — ${CONTACTS} contacts, ${CPM} calls/min, ${CONCURRENT} at once, fake Twilio in a child process (no answer, ${STEP_MS * 3} ms ringing), embedded PostgreSQL`);
console.log(`  status ${campaign.status}; counts ${JSON.stringify(campaign.counts)}`);
console.log(`  placed ${placed.length} calls to ${perNumber.size} numbers; dialled twice: ${[...perNumber.values()].filter((n) => n > 1).length}`);
console.log(`  ${perSecond.toFixed(1)} calls placed/s = ${achieved.toFixed(1)} calls/min vs ${CPM} configured (${((achieved / CPM) * 100).toFixed(1)}%); busiest 60 s: ${busiestMinute} calls`);
console.log(`  most calls at once ${report.peak} (limit ${CONCURRENT})`);
console.log(`  start → completed ${seconds.toFixed(1)} s`);
console.log(`  app CPU ${cpuS.toFixed(1)} s (${((cpuS / seconds) * 100).toFixed(1)}% of a core; ${((cpuS / Math.max(1, placed.length)) * 1000).toFixed(2)} ms per call), RSS peak ${Math.round(rssPeak / 1048576)} MB`);
await app.close();
await database.close();
fakes.disconnect();
