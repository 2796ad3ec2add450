/**
 * `npm run bench:tests [-- --scenarios 100] [--turns 8] [--delay 300] [--parallelism 8,16]`: one
 * test run of N scenarios × T caller turns through the whole path — POST /api/assistants/:id/test-runs
 * over HTTP, one job per scenario on the durable queue, every request at the fake Responses API
 * (bench-tests-provider.ts, its own process) answered after `--delay` ms — until GET
 * /api/test-runs/:id says done. Each scenario is 2T + 1 requests (caller and assistant per turn,
 * then the judge) after the first message, so its floor is (2T + 1) × delay. For each parallelism
 * (TEST_RUN_CONCURRENCY, a fresh app and database each) it prints the wall time, that floor ×
 * ⌈N / parallelism⌉ for comparison, per-scenario durations and the server's CPU.
 */
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestRun } from "../src/shared/scenarios.ts";
import { buildApp } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase } from "../src/server/db/client.ts";
import { injectPost, newAccount, signUp } from "../tests/sign-up.ts";
import { child, cpuSecondsOf, markdownTable, positiveOption } from "./bench-process.ts";
import { nextMessage, send, summarize } from "./bench-voice-shared.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => positiveOption(args, name, fallback);
const SCENARIOS = option("--scenarios", 100);
const TURNS = option("--turns", 8);
const DELAY_MS = option("--delay", 300);
const at = args.indexOf("--parallelism");
const PARALLELISMS = (at >= 0 ? args[at + 1]! : "8").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0);

const provider = child("bench-tests-provider.ts");
send(provider, { type: "start", delayMs: DELAY_MS });
const { baseUrl, apiKey } = await nextMessage<{ type: "listening"; baseUrl: string; apiKey: string }, "listening">(provider, "listening");

async function runAt(parallelism: number): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-tests-"));
  const database = await openDatabase({ kind: "pglite" });
  await database.migrate();
  const config = loadConfig({ NODE_ENV: "test", LOG_LEVEL: "silent", DATA_DIR: dataDir, OPENAI_BASE_URL: baseUrl, TEST_RUN_CONCURRENCY: String(parallelism), JOB_POLL_INTERVAL_MS: "500" });
  const app = await buildApp({ ...config, appSecret: "bench-tests-secret-0123456789abcdef0123456789" }, { database });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const { cookie } = await signUp(injectPost(app), newAccount("Bench", "bench-tests-"));
  await app.inject({ method: "PUT", url: "/api/credentials/openai_api_key", headers: { cookie }, payload: { value: apiKey } });
  const assistant = await app.inject({ method: "POST", url: "/api/assistants", headers: { cookie }, payload: { name: "Bench", instructions: "Help with orders.", first_message: "Hello, how can I help?" } });
  const assistantId = (assistant.json() as { id: string }).id;
  for (let i = 0; i < SCENARIOS; i += 1) {
    await app.inject({
      method: "POST",
      url: `/api/assistants/${assistantId}/scenarios`,
      headers: { cookie },
      payload: { name: `Scenario ${i + 1}`, persona: "You are Ada, waiting for order 42.", goal: "Learn when it arrives", rubric: "The arrival day is given.", max_turns: TURNS },
    });
  }

  const cpuBefore = cpuSecondsOf(process.pid);
  const started = Date.now();
  const res = await fetch(`${origin}/api/assistants/${assistantId}/test-runs`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: "{}" });
  const { id } = (await res.json()) as { id: string };
  let run: TestRun;
  for (;;) {
    run = (await (await fetch(`${origin}/api/test-runs/${id}`, { headers: { cookie } })).json()) as TestRun;
    if (run.status !== "running") break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const wall = (Date.now() - started) / 1000;
  const cpu = cpuSecondsOf(process.pid) - cpuBefore;
  await app.close();
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });

  const durations = summarize(run.results.map((r) => r.duration_ms ?? 0));
  const floor = ((2 * TURNS + 1) * DELAY_MS * Math.ceil(SCENARIOS / parallelism)) / 1000;
  return [
    String(parallelism),
    `${run.progress.passed}/${run.progress.total}`,
    wall.toFixed(1),
    floor.toFixed(1),
    (durations.p50 / 1000).toFixed(2),
    (durations.max / 1000).toFixed(2),
    cpu.toFixed(1),
    `$${run.cost.toFixed(4)}`,
  ];
}

const rows: string[][] = [];
for (const parallelism of PARALLELISMS) rows.push(await runAt(parallelism));
send(provider, { type: "report" });
const fake = await nextMessage<{ type: "report"; requests: number; accepted: number; scriptError: string | null }, "report">(provider, "report");
if (provider.exitCode === null) provider.kill();

console.log(`\nbench:tests — ${SCENARIOS} scenarios × ${TURNS} caller turns, fake Responses API at ${DELAY_MS} ms per request, embedded PostgreSQL\n`);
console.log(markdownTable(["parallelism", "passed", "wall s", "floor s", "scenario p50 s", "scenario max s", "server CPU s", "cost (fake usage)"], rows));
console.log(`\nrequests at the fake: ${fake.accepted} accepted of ${fake.requests}${fake.scriptError ? `; fake: ${fake.scriptError}` : ""}`);
process.exit(0);
