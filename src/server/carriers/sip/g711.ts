/**
 * G.711 A-law (ITU-T G.711), next to the µ-law the call engine already speaks (voice/audio.ts):
 * a trunk that only offers PCMA is carried by converting each byte through a table.
 */
import { mulawToPcm16, pcm16ToMulaw } from "../../voice/audio.ts";

function decodeAlawSample(code: number): number {
  const a = code ^ 0x55;
  let t = (a & 0x0f) << 4;
  const segment = (a & 0x70) >> 4;
  if (segment === 0) t += 8;
  else t = (t + 0x108) << (segment - 1);
  return a & 0x80 ? t : -t;
}

function encodeAlawSample(sample: number): number {
  let mask = 0xd5;
  let value = sample;
  if (value < 0) {
    mask = 0x55;
    value = -value - 1;
  }
  value >>= 3;
  let segment = 0;
  for (let end = 0x1f; segment < 8 && value > end; end = (end << 1) | 1) segment += 1;
  if (segment >= 8) return 0x7f ^ mask;
  const mantissa = segment < 1 ? value >> 1 : value >> segment;
  return (((segment << 4) | (mantissa & 0x0f)) ^ mask) & 0xff;
}

const ALAW_DECODE = Int16Array.from({ length: 256 }, (_, code) => decodeAlawSample(code));
const ALAW_ENCODE = Uint8Array.from({ length: 65_536 }, (_, bits) => encodeAlawSample((bits << 16) >> 16));
const MULAW_TO_ALAW = Uint8Array.from({ length: 256 }, (_, code) => ALAW_ENCODE[mulawToPcm16(Uint8Array.of(code))[0]! & 0xffff]!);
const ALAW_TO_MULAW = Uint8Array.from(pcm16ToMulaw(ALAW_DECODE));

export function alawToPcm16(alaw: Uint8Array): Int16Array {
  const out = new Int16Array(alaw.length);
  for (let i = 0; i < alaw.length; i += 1) out[i] = ALAW_DECODE[alaw[i]!]!;
  return out;
}

export function pcm16ToAlaw(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length);
  for (let i = 0; i < samples.length; i += 1) out[i] = ALAW_ENCODE[samples[i]! & 0xffff]!;
  return out;
}

const mapBytes = (table: Uint8Array, input: Uint8Array) => {
  const out = Buffer.allocUnsafe(input.length);
  for (let i = 0; i < input.length; i += 1) out[i] = table[input[i]!]!;
  return out;
};

export const mulawToAlaw = (mulaw: Uint8Array) => mapBytes(MULAW_TO_ALAW, mulaw);
export const alawToMulaw = (alaw: Uint8Array) => mapBytes(ALAW_TO_MULAW, alaw);

/** One 20 ms frame of silence in each law (the codes for a zero sample). */
export const SILENCE_BYTE = { PCMU: 0xff, PCMA: 0xd5 } as const;
