/**
 * Audio primitives of the call engine: G.711 µ-law ↔ PCM16, PCM16 little-endian buffers,
 * and a 16-bit stereo WAV writer. Phone legs are µ-law 8 kHz (passed to the provider
 * untouched); browser legs are PCM16 24 kHz. Conversions happen only for the recording.
 */

/** The two wire formats a call can use, named after the provider's `audio.*.format.type`. */
export type CallAudioFormat = "audio/pcm" | "audio/pcmu";

export const PCM_SAMPLE_RATE = 24_000;
export const PCMU_SAMPLE_RATE = 8_000;

export function sampleRateOf(format: CallAudioFormat): number {
  return format === "audio/pcm" ? PCM_SAMPLE_RATE : PCMU_SAMPLE_RATE;
}

/** Bytes of wire audio per millisecond: 48 for PCM16 24 kHz, 8 for µ-law 8 kHz. */
export function bytesPerMs(format: CallAudioFormat): number {
  return format === "audio/pcm" ? (PCM_SAMPLE_RATE * 2) / 1000 : PCMU_SAMPLE_RATE / 1000;
}

/**
 * Wire audio as it arrived: bytes, or the base64 text a JSON protocol carried it in. Phone audio
 * stays base64 from Twilio's `payload` to the provider's `append`, and from the provider's
 * `delta` to Twilio's `media`: decoded only where samples are needed (the recording, when it is
 * written out; the live board, while someone listens).
 */
export type WireAudio = Uint8Array | string;

/** Bytes the audio holds (for base64: from its length and padding, without decoding it). */
export function wireByteLength(audio: WireAudio): number {
  if (typeof audio !== "string") return audio.length;
  const n = audio.length;
  const padding = n > 0 && audio.charCodeAt(n - 1) === 61 ? (n > 1 && audio.charCodeAt(n - 2) === 61 ? 2 : 1) : 0;
  return ((n * 3) >> 2) - padding;
}

export function wireBytes(audio: WireAudio): Uint8Array {
  return typeof audio === "string" ? Buffer.from(audio, "base64") : audio;
}

export function wireBase64(audio: WireAudio): string {
  return typeof audio === "string" ? audio : Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength).toString("base64");
}

/** Base64 text only (what a `delta` or `payload` must be before it is passed on inside JSON unescaped). */
export const BASE64_TEXT = /^[A-Za-z0-9+/]*={0,2}$/;

/** Duration in ms of a wire-format buffer. */
export function durationMsOf(format: CallAudioFormat, byteLength: number): number {
  return byteLength / bytesPerMs(format);
}

// ---------------------------------------------------------------------------
// G.711 µ-law — the Sun Microsystems / CCITT algorithm (as in g711.c and Python's audioop):
// the 16-bit sample is reduced to 14 bits, biased by 33, and coded as sign, 3-bit segment
// and 4-bit mantissa, all bits inverted. The tables are constants, computed once.

const ULAW_SEG_END = [0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff, 0x1fff];
const ULAW_CLIP = 8159;
const ULAW_BIAS = 0x84;

function encodeMulawSample(sample: number): number {
  let value = sample >> 2;
  let mask = 0xff;
  if (value < 0) {
    value = -value;
    mask = 0x7f;
  }
  if (value > ULAW_CLIP) value = ULAW_CLIP;
  value += ULAW_BIAS >> 2;
  let segment = 0;
  while (segment < 8 && value > ULAW_SEG_END[segment]!) segment += 1;
  if (segment >= 8) return 0x7f ^ mask;
  return (((segment << 4) | ((value >> (segment + 1)) & 0xf)) ^ mask) & 0xff;
}

function decodeMulawSample(code: number): number {
  const u = ~code & 0xff;
  let t = ((u & 0x0f) << 3) + ULAW_BIAS;
  t <<= (u & 0x70) >> 4;
  return u & 0x80 ? ULAW_BIAS - t : t - ULAW_BIAS;
}

const MULAW_DECODE = Int16Array.from({ length: 256 }, (_, code) => decodeMulawSample(code));
// Indexed by the sample's 16-bit two's-complement pattern (sample & 0xffff).
const MULAW_ENCODE = Uint8Array.from({ length: 65_536 }, (_, bits) => encodeMulawSample((bits << 16) >> 16));

export function mulawToPcm16(mulaw: Uint8Array): Int16Array {
  const out = new Int16Array(mulaw.length);
  for (let i = 0; i < mulaw.length; i += 1) out[i] = MULAW_DECODE[mulaw[i]!]!;
  return out;
}

export function pcm16ToMulaw(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) out[i] = MULAW_ENCODE[samples[i]! & 0xffff]!;
  return out;
}

// ---------------------------------------------------------------------------
// PCM16 little-endian

/**
 * On a little-endian machine (x86, ARM as deployed) typed arrays already hold the wire's byte
 * order, so conversions are plain copies: a frame is copied in one go instead of sample by sample.
 */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;

/**
 * Samples of a PCM16 LE buffer, always copied: socket buffers may be slices of a larger
 * pooled allocation (and at an odd offset), and the recorder keeps samples for the whole call.
 * A trailing odd byte is ignored.
 */
export function pcm16FromBytes(bytes: Uint8Array): Int16Array {
  const count = bytes.length >> 1;
  const out = new Int16Array(count);
  if (LITTLE_ENDIAN) {
    new Uint8Array(out.buffer).set(bytes.subarray(0, count * 2));
    return out;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  for (let i = 0; i < count; i += 1) out[i] = view.getInt16(i * 2, true);
  return out;
}

export function pcm16ToBytes(samples: Int16Array): Buffer {
  if (LITTLE_ENDIAN) return Buffer.from(new Uint8Array(samples.buffer, samples.byteOffset, samples.length * 2));
  const out = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) out.writeInt16LE(samples[i]!, i * 2);
  return out;
}

/** Wire audio of either format as PCM16 samples (the live board's mix, a browser call's recording). */
export function decodeToPcm16(format: CallAudioFormat, audio: WireAudio): Int16Array {
  const bytes = wireBytes(audio);
  return format === "audio/pcm" ? pcm16FromBytes(bytes) : mulawToPcm16(bytes);
}

/** PCM16 samples as a transport's wire audio (a supervisor's voice to the caller). */
export function encodeFromPcm16(format: CallAudioFormat, samples: Int16Array): Uint8Array {
  return format === "audio/pcm" ? pcm16ToBytes(samples) : pcm16ToMulaw(samples);
}

/** 24 kHz → 8 kHz: each output sample the mean of three (a box filter, enough below 4 kHz for speech). */
export function downsample24to8(samples: Int16Array): Int16Array {
  const out = new Int16Array(Math.floor(samples.length / 3));
  for (let i = 0; i < out.length; i += 1) out[i] = Math.round((samples[3 * i]! + samples[3 * i + 1]! + samples[3 * i + 2]!) / 3);
  return out;
}

/** 8 kHz → 24 kHz: two samples between each pair, on the straight line between them. */
export function upsample8to24(samples: Int16Array): Int16Array {
  const out = new Int16Array(samples.length * 3);
  for (let i = 0; i < samples.length; i += 1) {
    const a = samples[i]!;
    const b = samples[i + 1] ?? a;
    out[3 * i] = a;
    out[3 * i + 1] = Math.round(a + (b - a) / 3);
    out[3 * i + 2] = Math.round(a + (2 * (b - a)) / 3);
  }
  return out;
}

/** PCM16 24 kHz bytes (what speech services and GPT-Live send) as a call's wire audio. */
export function toCallAudio(format: CallAudioFormat, pcm24k: Uint8Array): Uint8Array {
  return format === "audio/pcm" ? pcm24k : pcm16ToMulaw(downsample24to8(pcm16FromBytes(pcm24k)));
}

/** A call's wire audio as PCM16 24 kHz bytes (what GPT-Live takes). */
export function fromCallAudio(format: CallAudioFormat, audio: WireAudio): Uint8Array {
  return format === "audio/pcm" ? wireBytes(audio) : pcm16ToBytes(upsample8to24(mulawToPcm16(wireBytes(audio))));
}

// ---------------------------------------------------------------------------
// WAV

export const WAV_HEADER_BYTES = 44;

/** A canonical 16-bit PCM stereo WAV (44-byte header) of `frames` silent frames, to be filled. */
export function silentStereoWav(frames: number, sampleRate: number): Buffer {
  const dataBytes = frames * 4;
  const out = Buffer.alloc(WAV_HEADER_BYTES + dataBytes);
  out.write("RIFF", 0, "ascii");
  out.writeUInt32LE(36 + dataBytes, 4);
  out.write("WAVE", 8, "ascii");
  out.write("fmt ", 12, "ascii");
  out.writeUInt32LE(16, 16); // fmt chunk size
  out.writeUInt16LE(1, 20); // PCM
  out.writeUInt16LE(2, 22); // channels
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 4, 28); // byte rate
  out.writeUInt16LE(4, 32); // block align
  out.writeUInt16LE(16, 34); // bits per sample
  out.write("data", 36, "ascii");
  out.writeUInt32LE(dataBytes, 40);
  return out;
}

/** The 44-byte header of a stereo PCM16 WAV holding `frames` frames (patched in when a streamed recording ends). */
export function stereoWavHeader(frames: number, sampleRate: number): Buffer {
  const header = silentStereoWav(0, sampleRate);
  header.writeUInt32LE(36 + frames * 4, 4);
  header.writeUInt32LE(frames * 4, 40);
  return header;
}

/**
 * Writes `samples` into one channel (0 left, 1 right) of a stereo WAV from frame `startFrame`;
 * what does not fit is dropped. A Uint8Array holds µ-law codes, decoded on the way.
 */
export function writeWavChannel(wav: Buffer, channel: 0 | 1, startFrame: number, samples: Int16Array | Uint8Array): void {
  const frames = (wav.length - WAV_HEADER_BYTES) >> 2;
  const count = Math.max(0, Math.min(samples.length, frames - startFrame));
  const mulaw = samples instanceof Uint8Array ? samples : null;
  if (LITTLE_ENDIAN && (wav.byteOffset + WAV_HEADER_BYTES) % 2 === 0) {
    const data = new Int16Array(wav.buffer, wav.byteOffset + WAV_HEADER_BYTES, frames * 2);
    const base = startFrame * 2 + channel;
    if (mulaw) for (let i = 0; i < count; i += 1) data[base + i * 2] = MULAW_DECODE[mulaw[i]!]!;
    else for (let i = 0; i < count; i += 1) data[base + i * 2] = samples[i]!;
    return;
  }
  for (let i = 0; i < count; i += 1) {
    wav.writeInt16LE(mulaw ? MULAW_DECODE[mulaw[i]!]! : samples[i]!, WAV_HEADER_BYTES + (startFrame + i) * 4 + channel * 2);
  }
}

/** A stereo WAV of both channels; the shorter one is padded with silence. */
export function writeStereoWav(left: Int16Array, right: Int16Array, sampleRate: number): Buffer {
  const out = silentStereoWav(Math.max(left.length, right.length), sampleRate);
  writeWavChannel(out, 0, 0, left);
  writeWavChannel(out, 1, 0, right);
  return out;
}
