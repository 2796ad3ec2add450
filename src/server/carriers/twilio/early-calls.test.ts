import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import type { PrepareResult } from "../../modules/calls/calls.service.ts";
import { OpenAIRealtimeProvider } from "../../voice/providers/openai-realtime.ts";
import { PrimedProvider } from "../../voice/providers/primed-provider.ts";
import { buildSessionConfig } from "../../voice/providers/realtime-protocol.ts";
import { EarlyCalls } from "./early-calls.ts";

let fake: FakeRealtime;
beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-early" });
});
afterAll(async () => {
  await fake.close();
});

const prepared = { ok: true, call: {} } as Extract<PrepareResult, { ok: true }>;
const prime = () =>
  new PrimedProvider(
    new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-early", model: "gpt-realtime" }),
    buildSessionConfig({ model: "gpt-realtime", instructions: "", voice: "marin", format: "audio/pcmu", tools: [] }),
  );

describe("EarlyCalls", () => {
  it("gives a set-up to its stream once; one no stream takes is closed when it lapses or its stream went elsewhere", async () => {
    const early = new EarlyCalls(prime, 300);
    const first = fake.connections.length;
    early.begin("t1", "CA1", async () => prepared);
    early.begin("t2", "CA2", async () => prepared);
    early.begin("t3", "CA3", async () => prepared);
    const [taken, lapsed, elsewhere] = await Promise.all([0, 1, 2].map((i) => fake.connection(first + i)));

    const set = await early.take("t1");
    expect(set?.prepared).toBe(prepared);
    expect(set?.provider?.usable).toBe(true);
    expect(await early.take("t1")).toBeNull();

    early.dropCall("CA3");
    await elsewhere!.until(() => elsewhere!.closed !== null, 2000, "closed: its stream went elsewhere");
    await lapsed!.until(() => lapsed!.closed !== null, 2000, "closed: lapsed");
    expect(await early.take("t2")).toBeNull();
    expect(taken!.closed).toBeNull();
    set?.provider?.close();
  });

  it("leaves a refused or failed set-up for the stream to do again", async () => {
    const early = new EarlyCalls(prime);
    const refused: PrepareResult = { ok: false, code: 4400, reason: "No key" };
    early.begin("r", "CA4", async () => refused);
    early.begin("f", "CA5", () => Promise.reject(new Error("database down")));
    expect(await early.take("r")).toEqual({ prepared: refused, provider: null });
    expect(await early.take("f")).toBeNull();
  });
});
