/**
 * Provider errors tied to the client event that caused them, interrupted items' transcripts and
 * the transcript traffic of long turns, over real sockets and the fake provider.
 */
import { describe, expect, it } from "vitest";
import { useFakeCall } from "../../../tests/fakes/realtime-harness.ts";
import { HEARD_MARGIN_MS } from "./playback.ts";

const voice = useFakeCall();


describe("provider errors", () => {
  it("a rejected session.update ends the call at once with the provider's message", async () => {
    voice.fake.script = { refuse: [{ type: "session.update", code: "invalid_value", message: "Invalid value: 'robot'. Supported voices are: alloy, marin." }] };
    const harness = await voice.start({ session: { connectTimeoutMs: 15_000 } });
    const startedAt = Date.now();
    const { browser, session } = await harness.call();
    const outcome = await session.closed;
    const reason = "Failed to initialize session: Invalid value: 'robot'. Supported voices are: alloy, marin.";
    expect(outcome.reason).toBe(reason);
    expect(Date.now() - startedAt).toBeLessThan(10_000); // not the 15 s connect timeout
    expect(outcome.cost).toBe(0);
    expect(harness.store.only()).toMatchObject({ endedReason: reason, cost: 0 });
    await browser.untilClosed();
    expect(browser.transcript()).toContainEqual(expect.objectContaining({ type: "system", content: reason, isError: true }));
    expect(browser.of("ended")[0]).toMatchObject({ reason });
  });

  it("a response.create refused for another reason does not wedge the queue: the next typed message is answered", async () => {
    voice.fake.script = { replies: ["First answer.", "Second answer."] };
    const harness = await voice.start({ assistant: { firstMessage: null } });
    const { browser } = await harness.call();
    await browser.untilStatus("Connected to Ava");
    const conn = await voice.fake.connection();
    conn.refuseNext("response.create", "rate_limit_exceeded", "Rate limit reached for requests.");
    browser.sendText("Hello?");
    await browser.until(() => browser.transcript().some((e) => e.content === "Error from the provider: Rate limit reached for requests."), "refusal line");
    browser.sendText("Are you there?");
    await browser.until(() => browser.transcript().some((e) => e.type === "assistant"), "an answer");
    expect(browser.transcript().filter((e) => e.type === "assistant").map((e) => e.content)).toEqual(["First answer."]);
    expect(conn.receivedOf("response.create")).toHaveLength(2);
  });
});

describe("interrupted items", () => {
  it("keeps the transcript of an item interrupted before its first transcript delta, flagged", async () => {
    let chunks = 0;
    voice.fake.script = {
      replies: [{ say: "Sure, let me look that up for you.", audioMs: 3000, transcriptLagChunks: 10 }],
      chunkMs: 100,
      // The caller speaks after 3 chunks of audio, before any transcript delta was streamed.
      beforeAudioDelta: () => {
        chunks += 1;
        if (chunks === 3) setImmediate(() => voice.fake.connections[0]!.hear("Wait, stop."));
      },
    };
    const harness = await voice.start({ assistant: { firstMessage: null } });
    const { browser } = await harness.call();
    await browser.untilStatus("Connected to Ava");
    const conn = await voice.fake.connection();
    browser.sendText("Tell me something.");
    await conn.waitFor("conversation.item.truncate");
    const cut = (conn.sentOf("response.output_item.added")[0]!["item"] as { id: string }).id;
    expect(conn.sentOf("response.output_audio_transcript.delta").filter((e) => e["item_id"] === cut)).toEqual([]);
    await browser.until(() => browser.transcript().find((e) => e.type === "assistant")?.interruptedAtMs !== undefined, "the flagged entry");
    const entry = browser.transcript().find((e) => e.type === "assistant")!;
    expect(entry.content.length).toBeGreaterThan(0);
    expect("Sure, let me look that up for you.".startsWith(entry.content)).toBe(true);
    // Nothing was reported played: what may have been heard is the report's margin (protocols §1.9).
    const truncate = conn.receivedOf("conversation.item.truncate")[0]!;
    expect(truncate).toMatchObject({ item_id: cut, audio_end_ms: HEARD_MARGIN_MS });
    expect(entry.interruptedAtMs).toBe(HEARD_MARGIN_MS);
    expect(browser.transcript().map((e) => e.type).slice(0, 3)).toEqual(["user", "assistant", "user"]);
  });
});

describe("transcript traffic", () => {
  it("grows linearly with a long assistant turn: each piece is sent once", async () => {
    const words = Array.from({ length: 400 }, (_, i) => `word${i}`).join(" ");
    voice.fake.script = { replies: [{ say: words, audioMs: 400 }] };
    const harness = await voice.start({ assistant: { firstMessage: null } });
    const { browser } = await harness.call();
    await browser.untilStatus("Connected to Ava");
    browser.sendText("Talk for a while.");
    await browser.untilStatus("Assistant finished responding");
    expect(browser.transcript().find((e) => e.type === "assistant")?.content).toBe(words);
    const transcriptBytes = browser.messages
      .filter((m) => m.type === "transcript" || m.type === "transcript_delta")
      .reduce((sum, m) => sum + JSON.stringify(m).length, 0);
    // Resending the merged entry on every piece would cost ~400 × 1.5 KB on average (~1 MB).
    expect(transcriptBytes).toBeLessThan(words.length * 8);
  });
});
