/**
 * What a callee's phone plays when we call it, as a WAV (8 kHz mono, 16-bit) a baresip callee
 * plays as its microphone: a person's "Hello?" and then quiet, or an answering machine's greeting
 * (espeak-ng's voice), a pause, its beep, and quiet while it records. Made once per process.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const MACHINE_GREETING = "Hi, you have reached Ann Lee. I cannot take your call right now. Please leave a message after the tone.";
export const BEEP_HZ = 1000;

const DIR = join(tmpdir(), `switchboard-amd-${process.pid}`);
const FORMAT = ["-r", "8000", "-c", "1", "-b", "16"];

function speech(text: string, name: string): string {
  const raw = join(DIR, `${name}-raw.wav`);
  const out = join(DIR, `${name}.wav`);
  execFileSync("espeak-ng", ["-w", raw, text]);
  execFileSync("sox", [raw, ...FORMAT, out]);
  return out;
}

const quiet = (name: string, seconds: number) => {
  const out = join(DIR, `${name}.wav`);
  execFileSync("sox", ["-n", ...FORMAT, out, "trim", "0", String(seconds)]);
  return out;
};

/** The WAV a callee plays: `machine` (greeting, beep, 20 s of quiet) or `person` ("Hello?", then 20 s of quiet). */
export function calleeAudio(kind: "machine" | "person"): string {
  mkdirSync(DIR, { recursive: true });
  const out = join(DIR, `${kind}-callee.wav`);
  if (existsSync(out)) return out;
  if (kind === "person") {
    execFileSync("sox", [quiet("lead", 0.5), speech("Hello?", "hello"), quiet("tail", 20), out]);
    return out;
  }
  const beep = join(DIR, "beep.wav");
  execFileSync("sox", ["-n", ...FORMAT, beep, "synth", "0.5", "sine", String(BEEP_HZ), "vol", "0.5"]);
  execFileSync("sox", [quiet("lead", 0.5), speech(MACHINE_GREETING, "greeting"), quiet("gap", 0.4), beep, quiet("tail", 20), out]);
  return out;
}

/** How long the machine plays before it records: its greeting, the pause and the beep. */
export function machineGreetingSeconds(): number {
  calleeAudio("machine");
  return Number(execFileSync("soxi", ["-D", join(DIR, "greeting.wav")]).toString()) + 0.5 + 0.4 + 0.5;
}
