import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { recordProviderHandlers } from "../../../../tests/fakes/provider-handlers.ts";
import { OpenAIRealtimeProvider } from "./openai-realtime.ts";
import { PrimedProvider } from "./primed-provider.ts";
import { buildSessionConfig } from "./realtime-protocol.ts";

const session = (instructions: string) => buildSessionConfig({ model: "gpt-realtime", instructions, voice: "marin", format: "audio/pcmu", tools: [] });

describe("PrimedProvider: a session opened and configured before its call takes it", () => {
  let fake: FakeRealtime;
  beforeEach(async () => {
    fake = await startFakeRealtime({ apiKey: "sk-right", script: { replies: ["Hello there."] } });
  });
  afterEach(async () => {
    await fake.close();
  });
  const prime = (instructions: string) =>
    new PrimedProvider(new OpenAIRealtimeProvider({ baseUrl: fake.baseUrl, apiKey: "sk-right", model: "gpt-realtime" }), session(instructions));

  it("is configured before the call attaches; the call gets every event in order and its same configuration costs no round trip", async () => {
    const provider = prime("Be brief.");
    const conn = await fake.connection();
    // Configured with nobody attached yet.
    expect((await conn.waitFor("session.update"))["session"]).toMatchObject({ instructions: "Be brief." });
    await conn.waitForSent("session.updated");

    const r = recordProviderHandlers();
    provider.connect({ ...r.handlers, open: () => (r.handlers.open(), expect(provider.updateSession(session("Be brief."))).toBe(true)) });
    expect(r.opened()).toBe(true);
    await r.until(() => r.events.some((e) => e.type === "session.updated"));
    expect(r.events.map((e) => e.type)).toEqual(["session.created", "session.updated"]);
    // The call asks for its greeting straight away and hears it.
    expect(provider.createResponse({ instructions: 'Say "Hello there."' })).toBe(true);
    await r.until(() => r.events.some((e) => e.type === "response.done"));
    expect(conn.receivedOf("session.update")).toHaveLength(1);
    expect(r.events.filter((e) => e.type === "session.updated")).toHaveLength(1);
    provider.close();
    await r.until(() => r.closes.length === 1);
  });

  it("sends a different configuration, and the call goes live on its own session.updated only", async () => {
    const provider = prime("Early.");
    const r = recordProviderHandlers();
    // Attached at once: the early session.update is still on its way.
    provider.connect({ ...r.handlers, open: () => (r.handlers.open(), provider.updateSession(session("The call's own."))) });
    const conn = await fake.connection();
    await conn.waitForSent("session.updated", 1);
    await r.until(() => r.events.some((e) => e.type === "session.updated"));
    expect(conn.receivedOf("session.update").map((e) => (e["session"] as { instructions: string }).instructions)).toEqual(["Early.", "The call's own."]);
    const updated = r.events.filter((e) => e.type === "session.updated");
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ session: { instructions: "The call's own." } });
    provider.close();
  });

  it("is no longer usable once its session closed before a call took it; what it saw is still told to one that attaches", async () => {
    const provider = prime("Be brief.");
    expect(provider.usable).toBe(true);
    const conn = await fake.connection();
    await conn.waitForSent("session.updated");
    conn.drop(1011, "Internal server error");
    const r = recordProviderHandlers();
    await expect.poll(() => provider.usable).toBe(false);
    provider.connect(r.handlers);
    expect(r.closes).toEqual([[1011, "Internal server error"]]);
  });
});
