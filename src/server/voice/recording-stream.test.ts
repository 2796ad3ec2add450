import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLocalStorage } from "../storage/local-storage.ts";
import type { Storage } from "../storage/storage.ts";
import { WAV_HEADER_BYTES } from "./audio.ts";
import { CallRecorder } from "./recorder.ts";
import { RecordingStream } from "./recording-stream.ts";
import { silentLogger } from "./seams.ts";

let dir: string;
let storage: Storage;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "switchboard-recording-"));
  storage = createLocalStorage({ root: dir });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const FRAME = 4096; // samples per caller frame at 24 kHz (~171 ms)
const frame = (i: number) => new Int16Array(FRAME).map((_, j) => ((i * 7 + j) % 20_000) - 10_000);

/** Five minutes of a conversation: the caller all along, the assistant replying every 20 s (cut once). */
function talk(rec: CallRecorder, each: (ms: number) => void | Promise<void>): Promise<void> {
  return (async () => {
    for (let i = 0; i < 1760; i += 1) {
      const ms = ((i + 1) * FRAME * 1000) / 24_000;
      rec.addCaller(frame(i), ms);
      if (i % 117 < 30) rec.addAssistant(frame(i + 3), ms, `item-${Math.floor(i / 117)}`);
      if (i === 1000) rec.cutAssistantItem(`item-${Math.floor(i / 117)}`, 2_000);
      await each(ms);
    }
  })();
}

describe("RecordingStream", () => {
  it("streams a 5-minute call to storage in slices with flat memory, then patches the WAV header", async () => {
    const reference = new CallRecorder(24_000);
    await talk(reference, () => {});

    const rec = new CallRecorder(24_000);
    let now = 0;
    const stream = new RecordingStream(rec, () => now, silentLogger, { flushEveryMs: 60_000, settleMs: 10_000 });
    stream.open((key) => storage.openAppend(key, { contentType: "audio/wav" }), "recordings/long.wav");
    let lastFlush = 0;
    let heldMax = 0;
    await talk(rec, async (ms) => {
      now = ms;
      if (ms - lastFlush >= 1000) {
        lastFlush = ms;
        stream.flush();
        await stream.idle();
      }
      heldMax = Math.max(heldMax, rec.frames - rec.taken);
    });
    // Never more than the settling window (10 s) and a second of slack held in memory.
    expect(heldMax).toBeLessThan(24_000 * 12);
    expect(rec.taken).toBeGreaterThan(24_000 * 280);

    expect(await stream.finish()).toBe("recordings/long.wav");
    const stored = await readFile(path.join(dir, "recordings", "long.wav"));
    const expected = reference.toWav();
    expect(stored.length).toBe(expected.length);
    expect(stored.readUInt32LE(4)).toBe(expected.length - 8);
    expect(stored.readUInt32LE(40)).toBe(expected.length - WAV_HEADER_BYTES);
    expect(stored.equals(expected)).toBe(true);
  });

  it("stores nothing when the storage fails mid-call, and the call goes on", async () => {
    const rec = new CallRecorder(1000);
    let now = 0;
    let appends = 0;
    const stream = new RecordingStream(rec, () => now, silentLogger, { flushEveryMs: 60_000, settleMs: 100 });
    const aborted: string[] = [];
    stream.open(
      async (key) => ({
        append: async () => {
          appends += 1;
          if (appends > 1) throw new Error("disk full");
        },
        finish: async () => {
          throw new Error("must not finish");
        },
        abort: async () => void aborted.push(key),
      }),
      "recordings/x.wav",
    );
    await stream.idle();
    rec.addCaller(new Int16Array(500).fill(1), 500);
    now = 1000;
    stream.flush();
    await stream.idle();
    expect(await stream.finish()).toBeNull();
    expect(aborted).toEqual(["recordings/x.wav"]);
  });

  it("spreads the writes of calls that start together over the flush period", async () => {
    const startedAt = performance.now();
    const firstWrites: number[] = [];
    const streams = Array.from({ length: 20 }, () => {
      const rec = new CallRecorder(1000);
      rec.addCaller(new Int16Array(100).fill(1), 100);
      const stream = new RecordingStream(rec, () => 1000, silentLogger, { flushEveryMs: 400, settleMs: 0 });
      stream.open(
        async () => ({
          append: async (part) => {
            if (part.length > WAV_HEADER_BYTES) firstWrites.push(performance.now() - startedAt);
          },
          finish: async () => {},
          abort: async () => {},
        }),
        "recordings/x.wav",
      );
      return stream;
    });
    await expect.poll(() => firstWrites.length, { timeout: 2_000 }).toBe(20);
    await Promise.all(streams.map((s) => s.finish()));
    // Opened in the same tick, written at offsets of their own (all in one tick: a pause every caller hears).
    expect(Math.max(...firstWrites) - Math.min(...firstWrites)).toBeGreaterThan(100);
    expect(Math.max(...firstWrites)).toBeLessThan(1_000);
  });
});
