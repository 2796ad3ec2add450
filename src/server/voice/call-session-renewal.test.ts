/**
 * Calls longer than a provider session, against the fake provider with its
 * cap set to seconds, over real sockets: a planned switch between turns, and recovery when the
 * session ends anyway — one call, one record, one greeting.
 */
import { describe, expect, it } from "vitest";
import type { FakeConnection } from "../../../tests/fakes/fake-realtime.ts";
import { useFakeCall, type HarnessOptions } from "../../../tests/fakes/realtime-harness.ts";

const GREETING = "Hello, this is Ava. How can I help?";
const voice = useFakeCall();


async function call(options: HarnessOptions = {}) {
  const harness = await voice.start({ renew: true, ...options });
  const { browser, session } = await harness.call();
  await browser.untilStatus("Assistant finished responding");
  return { browser, session, h: harness };
}

const assistantLines = (b: Awaited<ReturnType<typeof call>>["browser"]) => b.transcript().filter((e) => e.type === "assistant").map((e) => e.content);
const contextOf = (conn: FakeConnection) =>
  conn.receivedOf("conversation.item.create").map((e) => {
    const item = e["item"] as { role: string; content: Array<{ text: string }> };
    return [item.role, item.content[0]!.text];
  });
const greetings = (conn: FakeConnection) => conn.receivedOf("response.create").filter((e) => (e["response"] as { instructions?: string } | undefined)?.instructions !== undefined);

describe("a call longer than the provider's session", () => {
  it("switches to a new session before the cap, with the same configuration and the conversation so far", async () => {
    voice.fake.script = { sessionCapMs: 4000, replies: ["Your order ships today."] };
    const { browser, session, h } = await call({ session: { renewBeforeExpiryMs: 2500 } });
    const first = await voice.fake.connection(0);
    browser.sendText("Where is my order?");
    await browser.until(() => assistantLines(browser).length === 2, "the answer");

    // Before the 4 s cap: a second session, configured like the first, holding the conversation.
    const second = await voice.fake.connection(1, 5000);
    await first.until(() => first.closed !== null, 5000, "the old session closed");
    expect(first.closed?.code).toBe(1000);
    expect(first.errorCodes()).not.toContain("session_expired");
    const [update1, update2] = [await first.waitFor("session.update"), await second.waitFor("session.update")];
    expect(update2["session"]).toEqual(update1["session"]);
    await second.until(() => contextOf(second).length === 3, 5000, "context items");
    expect(contextOf(second)).toEqual([
      ["assistant", GREETING],
      ["user", "Where is my order?"],
      ["assistant", "Your order ships today."],
    ]);
    expect(second.errorCodes()).toEqual([]);
    expect(greetings(second)).toEqual([]);

    // The call carries on in the new session.
    browser.sendText("Thanks!");
    await browser.until(() => assistantLines(browser).length === 3, "an answer from the new session");
    expect(second.receivedOf("response.create")).toHaveLength(1);
    expect(session.state).toBe("active");

    const outcome = await session.close("User ended call");
    expect(h.store.records.size).toBe(1);
    expect(outcome.logs.transcript.filter((e) => e.content === GREETING)).toHaveLength(1);
    expect(outcome.logs.transcript.filter((e) => e.type === "system")).toEqual([]);
  });

  it("waits for the turn in progress before switching", async () => {
    // The replacement is opened 2 s into the session, well after the typed text has reached the
    // server even on a loaded machine, while the answer (3 s of pieces) is still streaming.
    voice.fake.script = { sessionCapMs: 5000, replies: [{ say: "A long answer.", audioMs: 400, pieces: ["A ", "long ", "answer."], pieceGapMs: 1500 }] };
    const { browser } = await call({ session: { renewBeforeExpiryMs: 3000 } });
    const first = await voice.fake.connection(0);
    browser.sendText("Tell me.");
    const second = await voice.fake.connection(1, 5000);
    await second.waitForSent("session.updated");
    // The new session is ready while the answer is still streaming: no switch yet.
    expect(first.closed).toBeNull();
    await browser.until(() => assistantLines(browser).includes("A long answer."), "the whole answer");
    await first.until(() => first.closed !== null, 5000, "the switch");
    expect(contextOf(second).at(-1)).toEqual(["assistant", "A long answer."]);
  });

  it.each([
    ["session_expired", (c: FakeConnection) => c.expire()],
    ["an unexpected close", (c: FakeConnection) => c.drop(1011, "Internal server error")],
    ["a drop without a close frame", (c: FakeConnection) => c.drop(1006)],
  ])("recovers from %s without ending the call or greeting again", async (_what, end) => {
    voice.fake.script = { replies: ["First.", "Second."] };
    const { browser, session, h } = await call();
    browser.sendText("One?");
    await browser.until(() => assistantLines(browser).length === 2, "the first answer");
    end(await voice.fake.connection(0));
    const second = await voice.fake.connection(1, 5000);
    await second.until(() => contextOf(second).length === 3, 5000, "context items");
    expect(contextOf(second)[0]).toEqual(["assistant", GREETING]);
    expect(greetings(second)).toEqual([]);
    await browser.until(() => browser.transcript().length >= 3, "settled");
    browser.sendText("Two?");
    await browser.until(() => assistantLines(browser).length === 3, "an answer after the recovery");
    expect(session.state).toBe("active");
    expect(browser.closed).toBeNull();
    await session.close("User ended call");
    expect(h.store.only()).toMatchObject({ endedReason: "User ended call" });
  });

  it("ends the call with the reason when the replacement session cannot be set up", async () => {
    const { browser, session, h } = await call();
    voice.fake.script = { refuse: [{ type: "session.update", code: "invalid_value", message: "Model not available." }] };
    (await voice.fake.connection(0)).drop(1011, "Internal server error");
    const outcome = await session.closed;
    expect(outcome.reason).toBe("Failed to initialize session: Model not available.");
    expect(h.store.only()).toMatchObject({ endedReason: "Failed to initialize session: Model not available." });
    await browser.untilClosed();
  });
});
