/** Speech for simulated phone callers: espeak-ng text-to-speech, turned into µ-law 8 kHz by sox (cached per text). */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CACHE = join(tmpdir(), "switchboard-twilio-speech");

/** Raw µ-law 8 kHz mono bytes of `text` spoken by espeak-ng (8 bytes per ms). */
export function mulawSpeech(text: string): Buffer {
  mkdirSync(CACHE, { recursive: true });
  const name = createHash("sha256").update(text).digest("hex").slice(0, 16);
  const raw = join(CACHE, `${name}.ul`);
  if (!existsSync(raw)) {
    const wav = join(CACHE, `${name}.wav`);
    execFileSync("espeak-ng", ["-w", wav, text]);
    execFileSync("sox", [wav, "-r", "8000", "-c", "1", "-e", "mu-law", "-t", "raw", raw]);
  }
  return readFileSync(raw);
}
