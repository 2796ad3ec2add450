/**
 * What a caller hears while a transfer rings the destination: a ringing tone (440 + 480 Hz, two
 * seconds on, four off, as North American phones play it), so the line does not fall silent.
 */
import { pcm16ToMulaw } from "../../voice/audio.ts";
import type { RtpStream } from "../sip/rtp-session.ts";
import { mulawToAlaw } from "../sip/g711.ts";

const RATE = 8000;
const ON_S = 2;
const CYCLE_S = 6;

let cycle: Buffer | null = null;

function ringCycle(): Buffer {
  if (cycle) return cycle;
  const samples = new Int16Array(RATE * CYCLE_S);
  for (let i = 0; i < RATE * ON_S; i += 1) {
    const t = i / RATE;
    samples[i] = Math.round(2500 * (Math.sin(2 * Math.PI * 440 * t) + Math.sin(2 * Math.PI * 480 * t)));
  }
  cycle = Buffer.from(pcm16ToMulaw(samples));
  return cycle;
}

/** Rings on `rtp` until the returned stop is called (which also drops what is still queued). */
export function playRingback(rtp: RtpStream): () => void {
  const audio = rtp.codec === "PCMA" ? Buffer.from(mulawToAlaw(ringCycle())) : ringCycle();
  const feed = () => {
    if (rtp.queuedMs < CYCLE_S * 1000) rtp.play(audio);
  };
  feed();
  const timer = setInterval(feed, 1000);
  return () => {
    clearInterval(timer);
    rtp.clear();
  };
}
