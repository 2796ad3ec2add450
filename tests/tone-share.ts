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
