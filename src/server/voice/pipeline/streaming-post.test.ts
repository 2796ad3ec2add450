import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeChat, type FakeChat } from "../../../../tests/fakes/fake-chat-completions.ts";
import { startFakeElevenLabs, type FakeElevenLabs } from "../../../../tests/fakes/fake-elevenlabs.ts";
import { until } from "../../../../tests/until.ts";
import { streamChat } from "./chat-completions.ts";
import { speak } from "./elevenlabs.ts";
import { idleConnections } from "./streaming-post.ts";

/** The pipeline's streamed requests and their connections, against stand-ins on real local ports. */

const KEY = "xi-streaming-post";
let voice: FakeElevenLabs;
let model: FakeChat;

beforeAll(async () => {
  voice = await startFakeElevenLabs({ apiKey: KEY });
  model = await startFakeChat({ apiKey: KEY });
});
afterAll(async () => {
  await voice.close();
  await model.close();
});

const sentence = (text: string, signal: AbortSignal, onAudio: () => void) =>
  speak({ baseUrl: voice.baseUrl, apiKey: KEY, voice: "v1", model: null, format: "audio/pcmu", text, signal, onAudio });

describe("streamed requests", () => {
  it("stops reading a voice's answer at a barge-in but lets it run out, so the next sentence reuses its connection", async () => {
    // Ten words, a second of audio, sent in 20 ms pieces: still streaming when the reader stops.
    voice.options = { msPerWord: 100, chunkMs: 20, chunkGapMs: 10 };
    const barge = new AbortController();
    let heard = 0;
    const cut = sentence("one two three four five six seven eight nine ten", barge.signal, () => {
      heard += 1;
      barge.abort(new Error("barged in"));
    });
    await expect(cut).rejects.toThrow("barged in");
    // The reader stopped at its first piece; nothing more reached it.
    expect(heard).toBe(1);

    // The rest ran out unread, and the connection went back to the pool.
    await until("the cut answer's connection idle", async () => idleConnections(voice.baseUrl), (n) => n === 1, 10_000);
    expect(voice.requests[0]).toMatchObject({ cutOff: false });
    expect(voice.requests[0]!.sentMs).toBe(voice.requests[0]!.audioMs);

    await sentence("And the next one.", new AbortController().signal, () => {});
    expect(voice.requests).toHaveLength(2);
    expect(voice.connections).toBe(1);
  });

  it("closes the model's connection at an abort, so the service stops writing (and billing) the answer", async () => {
    model.script.replies = [{ say: "One two three four five six seven eight nine ten.", pieceGapMs: 20 }];
    const abort = new AbortController();
    const answer = streamChat({ baseUrl: model.baseUrl, apiKey: KEY, model: "m", messages: [{ role: "user", content: "Hi" }], tools: [], signal: abort.signal, onText: () => abort.abort(new Error("barged in")) });
    await expect(answer).rejects.toThrow("barged in");
    await until("the model told to stop", async () => model.dropped, (n) => n === 1, 10_000);
  });
});
