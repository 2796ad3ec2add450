/** What the tests hear in audio: the server's own Goertzel measure, and where a tone sounds. */
import { toneShare } from "../src/server/voice/goertzel.ts";

export { toneShare };

/** When (seconds from the start) `hz` is what sounds in `heard`, 100 ms window by window (quiet windows left out). */
export function toneTimes(heard: { samples: Int16Array; sampleRate: number }, hz: number, share = 0.6): number[] {
  const size = Math.round(heard.sampleRate / 10);
  const times: number[] = [];
  for (let at = 0; at + size <= heard.samples.length; at += size) {
    const window = heard.samples.subarray(at, at + size);
    if (window.some((s) => Math.abs(s) > 1000) && toneShare(window, heard.sampleRate, hz) > share) times.push(at / heard.sampleRate);
  }
  return times;
}

/**
 * How much of the first sound in `heard` (its 50 to 350 ms, past the onset) is `hz`: the greeting
 * a phone heard, told from noise or silence; 0 when nothing sounds at all.
 */
export function firstSoundShare(heard: { samples: Int16Array; sampleRate: number }, hz: number): number {
  const start = heard.samples.findIndex((sample) => Math.abs(sample) > 2000);
  if (start < 0) return 0;
  return toneShare(heard.samples.subarray(start + Math.round(heard.sampleRate * 0.05), start + Math.round(heard.sampleRate * 0.35)), heard.sampleRate, hz);
}
