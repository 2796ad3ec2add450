import { describe, expect, it } from "vitest";
import {
  WAV_HEADER_BYTES,
  bytesPerMs,
  decodeToPcm16,
  durationMsOf,
  mulawToPcm16,
  pcm16FromBytes,
  pcm16ToBytes,
  pcm16ToMulaw,
  writeStereoWav,
} from "./audio.ts";
import { CallRecorder } from "./recorder.ts";

// Vectors from the reference G.711 implementation (Sun g711.c, as shipped in CPython's audioop).
const ENCODE_VECTORS: Array<[number, number]> = [
  [0, 0xff], [1, 0xff], [-1, 0x7e], [8, 0xfe], [-8, 0x7e], [16, 0xfd], [31, 0xfb], [100, 0xf2],
  [-100, 0x72], [1000, 0xce], [-1000, 0x4e], [4000, 0xaf], [8031, 0xa0], [-8031, 0x20],
  [12345, 0x97], [-12345, 0x17], [32124, 0x80], [32767, 0x80], [-32124, 0x00], [-32768, 0x00],
];
const DECODE_VECTORS: Array<[number, number]> = [
  [0x00, -32124], [0x01, -31100], [0x0f, -16764], [0x10, -15996], [0x3f, -1980], [0x40, -1884],
  [0x7e, -8], [0x7f, 0], [0x80, 32124], [0x81, 31100], [0x8f, 16764], [0xc0, 1884], [0xef, 132],
  [0xfe, 8], [0xff, 0],
];

describe("µ-law", () => {
  it("encodes known vectors", () => {
    const encoded = pcm16ToMulaw(Int16Array.from(ENCODE_VECTORS.map(([pcm]) => pcm)));
    expect(Array.from(encoded)).toEqual(ENCODE_VECTORS.map(([, code]) => code));
  });

  it("decodes known vectors", () => {
    const decoded = mulawToPcm16(Uint8Array.from(DECODE_VECTORS.map(([code]) => code)));
    expect(Array.from(decoded)).toEqual(DECODE_VECTORS.map(([, pcm]) => pcm));
  });

  it("round-trips every code (decode then encode is the identity, except negative zero)", () => {
    const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const again = pcm16ToMulaw(mulawToPcm16(codes));
    for (let code = 0; code < 256; code += 1) {
      expect(again[code]).toBe(code === 0x7f ? 0xff : code);
    }
  });

  it("keeps the quantisation error within a segment step", () => {
    for (let sample = -32000; sample <= 32000; sample += 97) {
      const back = mulawToPcm16(pcm16ToMulaw(Int16Array.of(sample)))[0]!;
      expect(Math.abs(back - sample)).toBeLessThanOrEqual(Math.max(8, Math.abs(sample) / 16));
    }
  });
});

describe("PCM16", () => {
  it("reads and writes little-endian, even at an odd byte offset", () => {
    const samples = Int16Array.of(0, 1, -1, 32767, -32768, 1234);
    const bytes = pcm16ToBytes(samples);
    expect(Array.from(bytes.subarray(0, 8))).toEqual([0, 0, 1, 0, 0xff, 0xff, 0xff, 0x7f]);
    const shifted = Buffer.concat([Buffer.from([9]), bytes]).subarray(1);
    expect(shifted.byteOffset % 2).toBe(1);
    expect(Array.from(pcm16FromBytes(shifted))).toEqual(Array.from(samples));
  });

  it("ignores a trailing odd byte", () => {
    expect(pcm16FromBytes(Buffer.from([1, 0, 7])).length).toBe(1);
  });

  it("knows the byte rates", () => {
    expect(bytesPerMs("audio/pcm")).toBe(48);
    expect(bytesPerMs("audio/pcmu")).toBe(8);
    expect(durationMsOf("audio/pcm", 4096 * 2)).toBeCloseTo(170.67, 2);
    expect(Array.from(decodeToPcm16("audio/pcmu", Uint8Array.of(0xff, 0x80)))).toEqual([0, 32124]);
  });
});

describe("writeStereoWav", () => {
  it("writes the 44-byte header and interleaves left/right, padding the shorter side", () => {
    const wav = writeStereoWav(Int16Array.of(1, 2, 3), Int16Array.of(-1), 24_000);
    expect(wav.length).toBe(WAV_HEADER_BYTES + 3 * 4);
    expect(wav.toString("ascii", 0, 4)).toBe("RIFF");
    expect(wav.readUInt32LE(4)).toBe(36 + 12);
    expect(wav.toString("ascii", 8, 16)).toBe("WAVEfmt ");
    expect(wav.readUInt32LE(16)).toBe(16);
    expect(wav.readUInt16LE(20)).toBe(1);
    expect(wav.readUInt16LE(22)).toBe(2);
    expect(wav.readUInt32LE(24)).toBe(24_000);
    expect(wav.readUInt32LE(28)).toBe(96_000);
    expect(wav.readUInt16LE(32)).toBe(4);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.toString("ascii", 36, 40)).toBe("data");
    expect(wav.readUInt32LE(40)).toBe(12);
    const frames = [0, 1, 2].map((i) => [wav.readInt16LE(44 + i * 4), wav.readInt16LE(46 + i * 4)]);
    expect(frames).toEqual([[1, -1], [2, 0], [3, 0]]);
  });
});

/** Read a recorder WAV back into its two channels. */
function channels(wav: Buffer): { left: number[]; right: number[] } {
  const left: number[] = [];
  const right: number[] = [];
  for (let offset = WAV_HEADER_BYTES; offset < wav.length; offset += 4) {
    left.push(wav.readInt16LE(offset));
    right.push(wav.readInt16LE(offset + 2));
  }
  return { left, right };
}

const ones = (n: number, value = 1) => new Int16Array(n).fill(value);
const filled = (n: number, value: number) => Array.from({ length: n }, () => value);

describe("CallRecorder (1 kHz timeline: 1 sample = 1 ms)", () => {
  it("places the caller on the left as received and the assistant on the right when played", () => {
    const rec = new CallRecorder(1000);
    rec.addCaller(ones(10, 5), 10); // captured 0–10 ms
    rec.addAssistant(ones(4, 7), 2, "a"); // sent at 2 ms, plays 2–6
    rec.addAssistant(ones(4, 8), 3, "a"); // queued behind: plays 6–10
    const { left, right } = channels(rec.toWav());
    expect(left).toEqual(filled(10, 5));
    expect(right).toEqual([0, 0, 7, 7, 7, 7, 8, 8, 8, 8]);
  });

  it("absorbs caller jitter but keeps long silences", () => {
    const rec = new CallRecorder(1000);
    rec.addCaller(ones(100), 100);
    rec.addCaller(ones(100, 2), 300); // 100 ms late: jitter, placed right after
    rec.addCaller(ones(100, 3), 1000); // 700 ms of silence before it
    const { left } = channels(rec.toWav());
    expect(left.slice(0, 200)).toEqual([...filled(100, 1), ...filled(100, 2)]);
    expect(left.slice(200, 900).every((v) => v === 0)).toBe(true);
    expect(left.slice(900, 1000)).toEqual(filled(100, 3));
  });

  it("cuts the assistant at the played milliseconds of an item on barge-in", () => {
    const rec = new CallRecorder(1000);
    rec.addAssistant(ones(50, 1), 0, "a");
    rec.addAssistant(ones(50, 2), 0, "a");
    rec.addAssistant(ones(50, 3), 0, "b");
    rec.cutAssistantItem("a", 70);
    rec.addCaller(ones(200, 9), 200);
    const { right } = channels(rec.toWav());
    expect(right.slice(0, 70)).toEqual([...filled(50, 1), ...filled(20, 2)]);
    expect(right.slice(70).every((v) => v === 0)).toBe(true);
    // The next reply starts where playback stopped, not after the flushed audio.
    rec.addAssistant(ones(10, 4), 0, "c");
    expect(channels(rec.toWav()).right.slice(70, 80)).toEqual(filled(10, 4));
  });

  it("drops assistant audio still queued at hang-up", () => {
    const rec = new CallRecorder(1000);
    rec.addAssistant(ones(500), 0, "a");
    rec.trimAssistant(120);
    expect(rec.durationMs).toBe(120);
    expect(rec.isEmpty).toBe(false);
    expect(new CallRecorder(1000).isEmpty).toBe(true);
  });
});
