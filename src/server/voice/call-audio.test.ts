import { describe, expect, it } from "vitest";
import type { WireAudio } from "./audio.ts";
import { CallAudio } from "./call-audio.ts";
import { PlaybackLedger } from "./playback.ts";
import type { RealtimeProvider } from "./providers/openai-realtime.ts";
import { CallRecorder } from "./recorder.ts";
import type { Transport } from "./seams.ts";

/**
 * Where each side's audio goes: the provider hears the caller from the first frame (kept until
 * its session takes audio), the caller hears the assistant and a supervisor, the recording holds
 * what was said and sent, the live board's listeners hear PCM only while someone listens.
 */
function stage(format: "audio/pcmu" | "audio/pcm", o: { sends?: boolean } = {}) {
  const appended: WireAudio[] = [];
  const sent: Array<{ itemId: string; audio: WireAudio }> = [];
  const heard: Array<{ side: string; samples: number }> = [];
  const state = { takesAudio: false, listening: false, ms: 1000 };
  const provider = { appendAudio: (audio: WireAudio) => (appended.push(audio), true) } as unknown as RealtimeProvider;
  const transport = {
    audioFormat: format,
    sendAudio: (itemId: string, audio: WireAudio) => (o.sends === false ? false : (sent.push({ itemId, audio }), true)),
  } as unknown as Transport;
  const recorder = new CallRecorder(format === "audio/pcmu" ? 8000 : 24000);
  const playback = new PlaybackLedger();
  const audio = new CallAudio({
    transport,
    provider: () => provider,
    providerTakesAudio: () => state.takesAudio,
    recorder,
    playback,
    supervision: {
      get hearsAudio() {
        return state.listening;
      },
      callerAudio: (samples) => void heard.push({ side: "caller", samples: samples.length }),
      assistantAudio: (samples) => void heard.push({ side: "assistant", samples: samples.length }),
    },
    elapsed: () => state.ms,
  });
  return { audio, appended, sent, heard, state, recorder, playback };
}

const ulaw = (bytes: number, fill = 0x7f) => Buffer.alloc(bytes, fill).toString("base64");

describe("the call's audio stage", () => {
  it("keeps what the caller says before the provider takes audio and sends it first, in order", () => {
    const { audio, appended, state, recorder } = stage("audio/pcmu");
    audio.fromCaller(ulaw(160, 1));
    audio.fromCaller(ulaw(160, 2));
    expect(appended).toEqual([]);
    state.takesAudio = true;
    audio.providerReady();
    audio.fromCaller(ulaw(160, 3));
    // What was kept goes as one append (one write), the same bytes in the same order.
    expect(appended.map((a) => Buffer.from(typeof a === "string" ? Buffer.from(a, "base64") : a).toString("hex"))).toEqual([
      Buffer.concat([Buffer.alloc(160, 1), Buffer.alloc(160, 2)]).toString("hex"),
      Buffer.alloc(160, 3).toString("hex"),
    ]);
    expect(recorder.frames).toBeGreaterThanOrEqual(480);
  });

  it("cuts a browser's odd trailing byte so every later sample is read whole", () => {
    const { audio, appended, state } = stage("audio/pcm");
    state.takesAudio = true;
    audio.fromCaller(new Uint8Array(961));
    expect((appended[0] as Uint8Array).length).toBe(960);
  });

  it("sends the assistant's delta to the caller as it came, records it and counts it as sent", () => {
    const { audio, sent, playback, recorder } = stage("audio/pcmu");
    audio.fromAssistant("item_1", ulaw(800));
    expect(sent).toEqual([{ itemId: "item_1", audio: ulaw(800) }]);
    playback.played("item_1", 1000);
    expect(playback.playedMs("item_1")).toBe(100);
    expect(recorder.frames).toBeGreaterThan(0);
  });

  it("neither records nor counts as sent what the caller's socket refused", () => {
    const { audio, playback, recorder } = stage("audio/pcmu", { sends: false });
    audio.fromAssistant("item_1", ulaw(800));
    playback.played("item_1", 1000);
    expect(playback.playedMs("item_1")).toBe(0);
    expect(recorder.isEmpty).toBe(true);
  });

  it("gives the listeners PCM of both sides only while someone listens", () => {
    const { audio, heard, state } = stage("audio/pcmu");
    state.takesAudio = true;
    audio.fromCaller(ulaw(160));
    audio.fromAssistant("item_1", ulaw(160));
    expect(heard).toEqual([]);
    state.listening = true;
    audio.fromCaller(ulaw(160));
    audio.fromAssistant("item_1", ulaw(160));
    expect(heard).toEqual([
      { side: "caller", samples: 160 },
      { side: "assistant", samples: 160 },
    ]);
  });

  it("sends a supervisor's voice to the caller in the call's format, on its own item, and records it", () => {
    const { audio, sent, recorder } = stage("audio/pcmu");
    audio.fromSupervisor("supervisor_1", new Int16Array(160));
    expect(sent).toHaveLength(1);
    expect(sent[0]!.itemId).toBe("supervisor_1");
    expect((sent[0]!.audio as Uint8Array).length).toBe(160);
    expect(recorder.frames).toBeGreaterThan(0);
  });
});
