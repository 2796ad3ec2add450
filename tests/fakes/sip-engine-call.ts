/**
 * What the whole-conversation SIP tests of each voice engine share: baresip calling the app's SIP
 * number, a second baresip as the person a transfer reaches (by the caller's own call, as a REFER
 * asks), the call's record once closed, and how much of our speech (a 440 Hz tone in every
 * stand-in voice) the caller heard.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { calls } from "../../src/server/db/schema.ts";
import { pcmWav } from "../../src/server/modules/providers/wav.ts";
import { toneTimes } from "../tone-share.ts";
import { until } from "../until.ts";
import { startBaresip, type Baresip } from "./baresip.ts";
import type { PhoneApp } from "./twilio-app.ts";

export interface SipConversation {
  caller: Baresip;
  person: Baresip;
  /** The person's SIP address: a transfer destination handed to the caller's phone by REFER. */
  personAddress: string;
}

/** The caller's baresip (speaking `callerAudio`, a WAV, or its sine) and the person's; `run` once both are up; both stopped after. */
export async function withCallerAndPerson(callerAudio: string | undefined, run: (c: SipConversation) => Promise<void>): Promise<void> {
  const person = await startBaresip({ autoAnswer: true, user: "billing", toneHz: 1000 });
  const caller = await startBaresip(callerAudio ? { audioFile: callerAudio } : {});
  try {
    await run({ caller, person, personAddress: `sip:billing@127.0.0.1:${person.sipPort}` });
  } finally {
    await caller.stop();
    await person.stop();
  }
}

/** The record of the call to `numberId`, once closed and priced. */
export async function closedSipRecord(app: PhoneApp, numberId: string) {
  const row = await until(
    "the call's record closed",
    async () => (await app.db.select().from(calls).where(eq(calls.phoneNumberId, numberId)))[0],
    (found) => Boolean(found?.endTime && found.cost !== null),
    15_000,
  );
  return row!;
}

/** Milliseconds of our speech (440 Hz) in what a phone heard, to the nearest 100. */
export function heardSpeechMs(heard: { samples: Int16Array; sampleRate: number }): number {
  return toneTimes(heard, 440).length * 100;
}

/**
 * A WAV (8 kHz mono, 16-bit) for baresip to play as the caller: quiet and speech (a 300 Hz tone)
 * in turns, `parts` in seconds, quiet first: [quiet, speech, quiet, speech, ...].
 */
export function callerTurns(name: string, parts: number[]): string {
  const rate = 8000;
  const samples: number[] = [];
  parts.forEach((seconds, i) => {
    const n = Math.round(seconds * rate);
    for (let k = 0; k < n; k += 1) samples.push(i % 2 === 1 ? Math.round(8000 * Math.sin((2 * Math.PI * 300 * k) / rate)) : 0);
  });
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => data.writeInt16LE(s, i * 2));
  const path = join(tmpdir(), `switchboard-${name}-${process.pid}.wav`);
  writeFileSync(path, pcmWav(data, rate));
  return path;
}
