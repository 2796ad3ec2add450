/**
 * `npm run bench:voice -- --instances http://127.0.0.1:3001,http://127.0.0.1:3002 [--calls 20]
 * [--seconds 10] [--provider-port 4010]`: browser test calls spread round-robin over running
 * server instances (e.g. two behind one PostgreSQL), printing the calls each instance carried.
 *
 * The instances must have been started with OPENAI_BASE_URL=http://127.0.0.1:<provider-port>/v1:
 * this script serves the fake OpenAI Realtime server (tests/fakes) on that port, so no real
 * provider is called. A user, its key and an assistant are created through the first instance;
 * each call's session id is issued by the instance that then carries the call. One caller process
 * (bench-voice-callers.ts) per instance streams real-time PCM16 frames for `--seconds`.
 */
import { fork, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { startFakeRealtime } from "../tests/fakes/fake-realtime.ts";
import { fetchPost, newAccount, signUp } from "../tests/sign-up.ts";
import { nextMessage, send, type CallersMessage, type CallersRequest } from "./bench-voice-shared.ts";

const API_KEY = "sk-bench-voice";
const MAX_CALLS = 500;

export async function benchInstances(args: string[]): Promise<void> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const origins = (option("--instances") ?? "")
    .split(",")
    .map((u) => u.trim().replace(/\/+$/, ""))
    .filter(Boolean);
  const calls = Math.min(MAX_CALLS, Math.max(1, Number((option("--calls") ?? "20").split(",")[0]) || 20));
  const seconds = Math.max(3, Number(option("--seconds") ?? 10) || 10);
  const providerPort = Number(option("--provider-port") ?? 4010);
  if (origins.length === 0) throw new Error("--instances needs at least one URL");

  const fake = await startFakeRealtime({
    apiKey: API_KEY,
    port: providerPort,
    script: { userSays: ["Hello, I would like to hear an answer."], replies: ["Certainly, here is the answer you asked for."], keepAudioEvents: false },
  });
  const children: ChildProcess[] = [];
  try {
    const ids = await Promise.all(origins.map(instanceIdOf));
    console.log(`Fake OpenAI Realtime at ${fake.baseUrl}; ${calls} call(s) over ${origins.length} instance(s) for ${seconds} s`);

    const cookie = await setUp(origins[0]!);
    const assistantId = await createAssistant(origins[0]!, cookie);
    const urlsByInstance = origins.map(() => [] as string[]);
    for (let i = 0; i < calls; i += 1) {
      const at = i % origins.length;
      const sessionId = await testSession(origins[at]!, cookie, assistantId);
      urlsByInstance[at]!.push(`${origins[at]!.replace(/^http/, "ws")}/api/calls/live?session_id=${encodeURIComponent(sessionId)}`);
    }

    const callers = urlsByInstance.map((urls) => {
      const child = fork(join(import.meta.dirname, "bench-voice-callers.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
      children.push(child);
      send(child, { type: "start", urls, cookie, seconds } satisfies CallersRequest);
      return child;
    });
    const connected = await Promise.all(callers.map((c) => nextMessage<CallersMessage, "connected">(c, "connected")));
    const from = String(process.hrtime.bigint());
    for (const child of callers) send(child, { type: "stream" } satisfies CallersRequest);
    await Promise.all(callers.map((c) => nextMessage<CallersMessage, "streamed">(c, "streamed")));
    const window = { from, to: String(process.hrtime.bigint()) };
    for (const child of callers) send(child, { type: "end", ...window } satisfies CallersRequest);
    const reports = await Promise.all(callers.map((c) => nextMessage<CallersMessage, "report">(c, "report", 300_000)));

    console.log("");
    console.table(
      origins.map((origin, i) => ({
        instance: origin,
        id: ids[i],
        calls: urlsByInstance[i]!.length,
        connected: connected[i]!.connected,
        failed: connected[i]!.failed,
        answered: reports[i]!.answered,
        "ended normally": reports[i]!.closedNormally,
        "frames sent": reports[i]!.framesSent,
        "frames received": reports[i]!.framesReceived,
      })),
    );
    const errors = reports.flatMap((r) => r.errors);
    if (errors.length > 0) console.log(`Errors (first 5): ${errors.slice(0, 5).join(" | ")}`);
    const firstFailure = connected.find((c) => c.firstFailure)?.firstFailure;
    if (firstFailure) console.log(`First connection failure: ${firstFailure}`);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill();
    await fake.close();
  }
}

async function instanceIdOf(origin: string): Promise<string> {
  const res = await fetch(`${origin}/api/health`);
  const body = (await res.json()) as { instance?: string; error?: { message: string } };
  if (!res.ok) throw new Error(`${origin} is not ready: ${body.error?.message ?? res.status}`);
  return body.instance ?? "?";
}

async function post(origin: string, path: string, body: unknown, cookie?: string, method = "POST"): Promise<Response> {
  const res = await fetch(`${origin}${path}`, {
    method,
    // The browser's Origin header: the auth routes refuse cookie-less writes without one.
    headers: { "content-type": "application/json", origin, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} ${path} on ${origin}: ${res.status} ${await res.text()}`);
  return res;
}

/** A new user signed in, with the fake provider's key stored; returns the session cookie. */
async function setUp(origin: string): Promise<string> {
  const { cookie } = await signUp(fetchPost(origin), newAccount("Bench", "bench-"));
  await post(origin, "/api/credentials/openai_api_key", { value: API_KEY }, cookie, "PUT");
  return cookie;
}

async function createAssistant(origin: string, cookie: string): Promise<string> {
  const res = await post(origin, "/api/assistants", { name: "Bench", instructions: "Talk." }, cookie);
  return ((await res.json()) as { id: string }).id;
}

async function testSession(origin: string, cookie: string, assistantId: string): Promise<string> {
  const res = await post(origin, "/api/calls/test-session", { assistantId }, cookie);
  return ((await res.json()) as { session_id: string }).session_id;
}
