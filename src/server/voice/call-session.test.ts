import { describe, expect, it } from "vitest";
import type { TestBrowser } from "../../../tests/fakes/realtime-browser-client.ts";
import { silence } from "../../../tests/fakes/realtime-audio.ts";
import { MemoryCallStore, memoryRecordings } from "../../../tests/fakes/realtime-call-store.ts";
import { defaultAssistant, useFakeCall, type HarnessOptions } from "../../../tests/fakes/realtime-harness.ts";
import { MemoryTransport } from "../../../tests/fakes/realtime-memory-transport.ts";
import { RecordingToolRunner } from "../../../tests/fakes/realtime-tool-runner.ts";
import { specBrowserSession } from "../../../tests/fakes/realtime-session-check.ts";
import { WAV_HEADER_BYTES } from "./audio.ts";
import { CallSession } from "./call-session.ts";
import { OpenAIRealtimeProvider } from "./providers/openai-realtime.ts";

const voice = useFakeCall();


async function call(options: HarnessOptions = {}) {
  const harness = await voice.start(options);
  const { browser, session } = await harness.call();
  return { browser, session, h: harness };
}

async function poll(check: () => boolean, timeoutMs = 3000): Promise<void> {
  for (const started = Date.now(); !check(); await new Promise((resolve) => setTimeout(resolve, 5))) {
    if (Date.now() - started > timeoutMs) throw new Error("poll: timed out");
  }
}
const lastStatus = (b: TestBrowser) => b.statuses().at(-1);
const untilIdle = (b: TestBrowser) => b.until(() => lastStatus(b) === "Assistant finished responding", "assistant idle");
/** Wait until `n` responses have finished in this call. */
const untilResponses = (b: TestBrowser, n: number) =>
  b.until(() => b.statuses().filter((s) => s === "Assistant finished responding").length >= n, `${n} responses`);
const contents = (b: TestBrowser) => b.transcript().map((e) => [e.type, e.content]);

describe("opening a call", () => {
  it("sends the GA session.update, then has the assistant say the first message", async () => {
    const { browser, h } = await call({ assistant: { instructions: "Be kind." } });
    const conn = await voice.fake.connection();
    const update = await conn.waitFor("session.update");
    expect(update["session"]).toEqual(specBrowserSession("Be kind.", []));

    const create = await conn.waitFor("response.create");
    expect(create["response"]).toEqual({
      instructions: expect.stringContaining('"Hello, this is Ava. How can I help?"'),
      tool_choice: "none",
    });
    // The greeting waits for session.updated, so it uses the configured voice and format.
    expect(conn.received.indexOf(update)).toBeLessThan(conn.received.indexOf(create));

    await untilIdle(browser);
    expect(contents(browser)).toEqual([["assistant", "Hello, this is Ava. How can I help?"]]);
    expect(browser.statuses()).toEqual([
      "Connecting...",
      "Connected to Ava",
      "Assistant is responding",
      "Assistant finished responding",
    ]);
    const [itemId, bytes] = [...browser.audio.entries()][0]!;
    expect(itemId).toMatch(/^item_assistant/);
    expect(bytes).toBe(400 * 48); // 400 ms of PCM16 24 kHz
    expect(conn.errorCodes()).toEqual([]);

    const started = browser.of("started")[0]!;
    // The finished turn (the greeting) is already saved while the call goes on.
    expect(h.store.records.get(started.callId)).toMatchObject({
      assistantId: "asst_1",
      organizationId: "user_1",
      logs: { isTest: true, transcript: [expect.objectContaining({ type: "assistant", content: "Hello, this is Ava. How can I help?" })], toolsUsed: [] },
      endTime: null,
    });
  });

  it("waits for the caller when there is no first message", async () => {
    voice.fake.script = { userSays: ["Hi there"], replies: ["Hello!"] };
    const { browser } = await call({ assistant: { firstMessage: "" } });
    await browser.untilStatus("Connected to Ava");
    const conn = await voice.fake.connection();
    expect(conn.receivedOf("response.create")).toHaveLength(0);
    browser.speak(400);
    await browser.until(() => contents(browser).length === 2, "two entries");
    expect(contents(browser)).toEqual([
      ["user", "Hi there"],
      ["assistant", "Hello!"],
    ]);
    // The VAD created the reply; the engine sent no response.create of its own.
    expect(conn.receivedOf("response.create")).toHaveLength(0);
  });
});

describe("audio and transcript", () => {
  it("forwards caller audio and keeps a late transcription before the reply it triggered", async () => {
    voice.fake.script = { userSays: ["Where is my order?"], replies: ["It ships tomorrow."], transcriptionDelayMs: 150 };
    const { browser } = await call();
    await untilIdle(browser);
    browser.speak(400);
    await browser.until(() => contents(browser).length === 3, "three entries");
    expect(contents(browser)).toEqual([
      ["assistant", "Hello, this is Ava. How can I help?"],
      ["user", "Where is my order?"],
      ["assistant", "It ships tomorrow."],
    ]);
    const conn = await voice.fake.connection();
    const appended = conn.receivedOf("input_audio_buffer.append").reduce((n, e) => n + Buffer.from(String(e["audio"]), "base64").length, 0);
    expect(appended).toBe(400 * 48);
  });

  it("merges assistant pieces less than 2 s apart and splits at 2 s or more", async () => {
    // A clock running 10× fast: a 300 ms real pause is 3 s of call time.
    const t0 = Date.now();
    voice.fake.script = {
      replies: [
        { say: "Hello there friend.", pieces: ["Hello ", "there ", "friend."] },
        { say: "One. Two.", pieces: ["One. ", "Two."], pieceGapMs: 300 },
        { say: "Three. Four.", pieces: ["Three. ", "Four."], pieceGapMs: 100 },
      ],
    };
    const { browser } = await call({ assistant: { firstMessage: null }, session: { now: () => t0 + (Date.now() - t0) * 10 } });
    await browser.untilStatus("Connected to Ava");
    for (const text of ["hi", "again", "more"]) {
      const before = browser.transcript().length;
      browser.sendText(text);
      await browser.until(() => browser.transcript().length > before + 1 && lastStatus(browser) === "Assistant finished responding", text);
    }
    expect(contents(browser)).toEqual([
      ["user", "hi"],
      ["assistant", "Hello there friend."],
      ["user", "again"],
      ["assistant", "One. "],
      ["assistant", "Two."],
      ["user", "more"],
      ["assistant", "Three. Four."],
    ]);
  });
});

describe("typed messages", () => {
  it("adds a user entry and asks for a response; blank text is ignored", async () => {
    voice.fake.script = { replies: ["It is noon."] };
    const { browser } = await call();
    await untilIdle(browser);
    const conn = await voice.fake.connection();
    browser.sendText("   ");
    browser.sendText("What time is it?");
    await untilResponses(browser, 2);
    expect(contents(browser).slice(1)).toEqual([
      ["user", "What time is it?"],
      ["assistant", "It is noon."],
    ]);
    expect(conn.receivedOf("conversation.item.create").map((e) => e["item"])).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "What time is it?" }] },
    ]);
    expect(conn.receivedOf("response.create")).toHaveLength(2); // greeting + this one
  });

  it("queues a response asked for while one is active: never two at once", async () => {
    voice.fake.script = {
      replies: [{ say: "A slow answer in parts.", pieces: ["A slow ", "answer ", "in parts."], pieceGapMs: 150 }, "Second answer."],
    };
    const { browser } = await call({ assistant: { firstMessage: null } });
    await browser.untilStatus("Connected to Ava");
    const conn = await voice.fake.connection();
    browser.sendText("first");
    await conn.until(() => conn.hasActiveResponse, 3000, "active response");
    browser.sendText("second");
    await conn.waitFor("conversation.item.create", 1);
    expect(conn.receivedOf("response.create")).toHaveLength(1);
    await untilResponses(browser, 2);
    expect(browser.transcript().at(-1)?.content).toMatch(/Second answer\.$/);
    // The second response.create went out only after the first response was done.
    const flow = conn.timeline.filter((e) => e.type === "response.create" || e.type === "response.done").map((e) => `${e.dir} ${e.type}`);
    expect(flow).toEqual(["in response.create", "out response.done", "in response.create", "out response.done"]);
    expect(conn.errorCodes()).toEqual([]);
  });
});

describe("barge-in", () => {
  it("flushes the browser and truncates the item at what the flush report says was heard (+50 ms at most)", async () => {
    voice.fake.script = { replies: [{ say: "Once upon a time there was a very long story.", audioMs: 3000 }], userSays: ["Wait, stop."] };
    // A clock the test moves: the caller "listens" for 5 s before hanging up.
    let now = Date.now();
    const { browser, session, h } = await call({ assistant: { firstMessage: null }, session: { now: () => now } });
    await browser.untilStatus("Connected to Ava");
    browser.sendText("Tell me a story");
    await browser.until(() => [...browser.audio.values()].some((bytes) => bytes === 3000 * 48), "story audio");
    const itemId = browser.of("audio_start")[0]!.itemId;
    browser.playback(itemId, 400);
    browser.playback(itemId, 500);
    browser.speak(400);
    // The panel's flush report after the clear: it had played 650 ms when the clear took effect.
    await browser.until(() => browser.of("clear").length > 0, "clear");
    browser.playback(itemId, 650);

    const conn = await voice.fake.connection();
    const truncate = await conn.waitFor("conversation.item.truncate");
    expect(truncate).toMatchObject({ item_id: itemId, content_index: 0, audio_end_ms: 700 });
    await conn.waitForSent("conversation.item.truncated");
    await browser.until(() => browser.transcript().some((e) => e.interruptedAtMs === 700), "interrupted mark");
    expect(browser.transcript().find((e) => e.interruptedAtMs === 700)?.content).toBe("Once upon a time there was a very long story.");
    expect(conn.errorCodes()).toEqual([]);

    // The recording keeps only the 700 ms the caller heard of that item on the right channel.
    now += 5000;
    const outcome = await session.close("User ended call");
    const wav = h.recordings.saved.get(outcome.recording!)!;
    const right: number[] = [];
    for (let at = WAV_HEADER_BYTES; at < wav.length; at += 4) right.push(wav.readInt16LE(at + 2));
    const first = right.findIndex((v) => v !== 0);
    const last = right.length - 1 - [...right].reverse().findIndex((v) => v !== 0);
    const story = right.slice(first, first + 24 * 700);
    expect(story.filter((v) => v !== 0).length).toBeGreaterThan(24 * 690);
    // Silence after the cut, until the reply to "Wait, stop." (400 ms) that follows it.
    expect(last - first + 1).toBeLessThanOrEqual(24 * 700 + 24 * 400);
  });

  it("does not truncate an item the caller heard in full", async () => {
    voice.fake.script = { userSays: ["Thanks"], replies: ["You're welcome."] };
    const { browser } = await call();
    await untilIdle(browser);
    const itemId = browser.of("audio_start")[0]!.itemId;
    browser.playback(itemId, 400);
    browser.speak(400);
    await browser.until(() => contents(browser).length === 3, "reply");
    const conn = await voice.fake.connection();
    expect(conn.receivedOf("conversation.item.truncate")).toHaveLength(0);
    expect(browser.of("clear").length).toBe(1);
  });
});

describe("phone format (a Transport in µ-law)", () => {
  it("uses audio/pcmu both ways, passes µ-law through untouched and records 8 kHz stereo", async () => {
    voice.fake.script = { userSays: ["Hello"], replies: ["Hi caller."] };
    const transport = new MemoryTransport("audio/pcmu");
    const store = new MemoryCallStore();
    const recordings = memoryRecordings();
    const session = new CallSession({
      transport,
      provider: new OpenAIRealtimeProvider({ baseUrl: voice.fake.baseUrl, apiKey: voice.fake.apiKey, model: "gpt-realtime-2.1", pingIntervalMs: 0 }),
      toolRunner: new RecordingToolRunner(),
      store,
      openRecording: recordings.open,
      assistant: defaultAssistant,
      organizationId: "user_1",
      isTest: false,
    });
    session.start();
    const conn = await voice.fake.connection();
    const update = (await conn.waitFor("session.update"))["session"] as { audio: { input: { format: unknown }; output: { format: unknown } } };
    expect(update.audio.input.format).toEqual({ type: "audio/pcmu" });
    expect(update.audio.output.format).toEqual({ type: "audio/pcmu" });
    const finished = () => transport.sent.filter((m) => m.type === "status" && m.text === "Assistant finished responding").length;
    await poll(() => finished() === 1);
    expect(transport.audio.reduce((n, a) => n + a.bytes, 0)).toBe(400 * 8); // the greeting, µ-law

    const caller = silence("audio/pcmu", 400);
    transport.handlers!.audio(caller);
    await poll(() => finished() === 2);
    const appended = Buffer.concat(conn.receivedOf("input_audio_buffer.append").map((e) => Buffer.from(String(e["audio"]), "base64")));
    expect(appended.equals(caller)).toBe(true);

    const outcome = await session.close("Caller hung up");
    expect(outcome.logs.isTest).toBe(false);
    expect(outcome.logs.transcript.map((e) => e.content)).toEqual(["Hello, this is Ava. How can I help?", "Hello", "Hi caller."]);
    const wav = recordings.saved.get(outcome.recording!)!;
    expect(wav.readUInt16LE(22)).toBe(2);
    expect(wav.readUInt32LE(24)).toBe(8000);
    expect(conn.errorCodes()).toEqual([]);
  });
});
