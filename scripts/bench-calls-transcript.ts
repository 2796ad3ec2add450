/**
 * bench:calls' transcript figure: what saving one turn costs at the start of a 60-minute call
 * and at its end (the call engine's own store on the embedded database), and the one write of
 * the whole transcript when the call ends. A turn every 5 s: a caller line and an answer of
 * about 40 words, two entries per save, as a finished turn saves them.
 */
import { eq } from "drizzle-orm";
import { assistants } from "../src/server/db/schema.ts";
import { createDbCallStore } from "../src/server/modules/calls/calls.repo.ts";
import type { TranscriptEntry } from "../src/shared/calls.ts";
import { startPhoneBenchApp } from "./bench-phone-app.ts";
import { summarize, type Summary } from "./bench-voice-shared.ts";

export interface TranscriptCost {
  turns: number;
  first: Summary;
  last: Summary;
  finishMs: number;
}

const SAMPLE = 20;
const answer = "Thanks for waiting, I have found your order and it is on its way to you now. ".repeat(3).trim();

export async function transcriptCost(minutes = 60): Promise<TranscriptCost> {
  const bench = await startPhoneBenchApp({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-unused" });
  try {
    const { db } = bench.database;
    const [assistant] = await db.select({ id: assistants.id }).from(assistants).where(eq(assistants.organizationId, bench.organizationId));
    const store = createDbCallStore(db, "bench");
    const started = Date.now();
    const id = await store.insert({ assistantId: assistant!.id, organizationId: bench.organizationId, startTime: new Date(started).toISOString(), logs: { isTest: false, transcript: [], toolsUsed: [] } });
    const turns = (minutes * 60) / 5;
    const transcript: TranscriptEntry[] = [];
    const times: number[] = [];
    for (let turn = 0; turn < turns; turn += 1) {
      const at = new Date(started + turn * 5000).toISOString();
      const user: TranscriptEntry = { type: "user", content: `Where is my order number ${turn}?`, timestamp: at };
      const assistantLine: TranscriptEntry = { type: "assistant", content: answer, timestamp: at };
      transcript.push(user, assistantLine);
      const t0 = performance.now();
      await store.saveProgress(id, [
        { kind: "transcript", position: turn * 2, body: user },
        { kind: "transcript", position: turn * 2 + 1, body: assistantLine },
      ]);
      times.push(performance.now() - t0);
    }
    const t0 = performance.now();
    await store.finish(id, { endTime: new Date(started + minutes * 60_000).toISOString(), endedReason: "User ended call", cost: 0.05, logs: { isTest: false, transcript, toolsUsed: [] }, recording: null });
    const finishMs = performance.now() - t0;
    // The first and last turns, each over a few saves so one slow one does not decide.
    return { turns, first: summarize(times.slice(1, 1 + SAMPLE)), last: summarize(times.slice(-SAMPLE)), finishMs };
  } finally {
    await bench.close();
  }
}
