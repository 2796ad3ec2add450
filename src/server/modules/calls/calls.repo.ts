import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import type { Db } from "../../db/client.ts";
import { assistants, callEntries, calls } from "../../db/schema.ts";
import type { CallEntryWrite, CallStore } from "../../voice/seams.ts";
import { pendingAnalysisOnClose } from "../analysis/analysis.repo.ts";

/**
 * A call's logs with the entries saved while it ran folded in (for a record closed without its
 * engine's final write: an instance that died). Records without entries keep their logs.
 */
export const logsWithEntries: SQL = sql`CASE WHEN EXISTS (SELECT 1 FROM ${callEntries} e WHERE e.call_id = ${calls.id}) THEN ${calls.logs} || jsonb_build_object(
  'transcript', coalesce((SELECT jsonb_agg(e.body ORDER BY e.position) FROM ${callEntries} e WHERE e.call_id = ${calls.id} AND e.kind = 'transcript'), '[]'::jsonb),
  'toolsUsed', coalesce((SELECT jsonb_agg(e.body ORDER BY e.position) FROM ${callEntries} e WHERE e.call_id = ${calls.id} AND e.kind = 'tool'), '[]'::jsonb)
) ELSE ${calls.logs} END`;

/** The entries a live call has saved so far, in order (the call's details while it runs). */
export async function savedEntries(db: Db, callId: string) {
  const rows = await db
    .select({ kind: callEntries.kind, body: callEntries.body })
    .from(callEntries)
    .where(eq(callEntries.callId, callId))
    .orderBy(callEntries.kind, callEntries.position);
  if (rows.length === 0) return null;
  return { transcript: rows.filter((r) => r.kind === "transcript").map((r) => r.body), toolsUsed: rows.filter((r) => r.kind === "tool").map((r) => r.body) };
}

/**
 * A machine answered (Twilio's AnsweredBy, which any instance may have received): whatever
 * ended the stream, the call was a voicemail.
 */
export const endedReasonUnlessVoicemail = (reason: string | SQL) =>
  sql`CASE WHEN ${calls.answeredBy} LIKE 'machine%' OR ${calls.answeredBy} = 'fax' THEN ${OUTBOUND_ENDED.voicemail} ELSE ${reason} END`;

/**
 * The call engine's record of a call, in the `calls` table. Written by the server only.
 * `instanceId` is the instance carrying the calls (instances/instance-lease.ts): the record names
 * it while the call is live, so another instance closes it only once this one's lease lapsed.
 */
export function createDbCallStore(db: Db, instanceId: string): CallStore {
  const progress = gatheredProgress(async (rows) => {
    // Only while the call is open: never beside the final record, nor one a sweep closed.
    // One statement, one row per changed entry: the cost of the turn, not of the call so far.
    await db.execute(sql`
      INSERT INTO ${callEntries} (call_id, kind, position, body)
      SELECT c.id, e.kind, e.position, e.body
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS e(call_id uuid, kind text, position int, body jsonb)
      JOIN ${calls} c ON c.id = e.call_id AND c.end_time IS NULL
      ON CONFLICT (call_id, kind, position) DO UPDATE SET body = excluded.body`);
  });
  return {
    async insert(start) {
      const recordId = start.phone?.recordId;
      if (recordId) {
        // An outbound call's record exists since it was dialled: the answered call takes it over.
        const [adopted] = await db
          .update(calls)
          .set({ startTime: new Date(start.startTime), logs: start.logs, providerStatus: "in-progress", variables: start.phone?.variables ?? null, instanceId, sipDialog: start.phone?.sipDialog ?? null })
          .where(and(eq(calls.id, recordId), isNull(calls.endTime)))
          .returning({ id: calls.id });
        if (!adopted) throw new Error("the outbound call's record is closed");
        return adopted.id;
      }
      // The name is copied so the record still says who answered after the assistant is deleted.
      const [assistant] = await db.select({ name: assistants.name }).from(assistants).where(eq(assistants.id, start.assistantId));
      const [row] = await db
        .insert(calls)
        .values({
          organizationId: start.organizationId,
          assistantId: start.assistantId,
          assistantName: assistant?.name ?? null,
          assistantVersion: start.assistantVersion ?? null,
          startTime: new Date(start.startTime),
          logs: start.logs,
          callerNumber: start.phone?.callerNumber ?? null,
          calledNumber: start.phone?.calledNumber ?? null,
          phoneNumberId: start.phone?.phoneNumberId ?? null,
          // A SIP call's id is its Call-ID; Twilio's is its CallSid.
          carrier: start.phone?.carrier ?? "twilio",
          providerCallSid: start.phone?.carrier === "sip" ? null : (start.phone?.providerCallSid ?? null),
          sipCallId: start.phone?.carrier === "sip" ? start.phone.providerCallSid : null,
          sipDialog: start.phone?.sipDialog ?? null,
          variables: start.phone?.variables ?? null,
          instanceId,
        })
        .returning({ id: calls.id });
      return row!.id;
    },
    saveProgress: (id, entries) => progress.save(id, entries),
    async finish(id, update) {
      // The final write waits for progress writes in flight, so it is the last word. The whole
      // logs go into the record once (its search vector built then); the entries have served.
      await progress.settled(id);
      await db.transaction(async (tx) => {
        await tx
          .update(calls)
          .set({
            endTime: new Date(update.endTime),
            endedReason: endedReasonUnlessVoicemail(update.endedReason),
            cost: update.cost,
            logs: update.logs,
            recording: update.recording,
            providerCost: update.providerCost ?? null,
            // In the same write as the close: an analysis asked for even if this instance dies now.
            analysis: pendingAnalysisOnClose,
          })
          .where(eq(calls.id, id));
        await tx.delete(callEntries).where(eq(callEntries.callId, id));
      });
    },
    async read(id) {
      const [row] = await db.select({ endTime: calls.endTime, cost: calls.cost }).from(calls).where(eq(calls.id, id));
      return row ? { endTime: row.endTime?.toISOString() ?? null, cost: row.cost } : null;
    },
  };
}

type ProgressRow = CallEntryWrite & { call_id: string };

/**
 * The progress saves of every call on this instance, gathered: one statement runs at a time, and
 * the saves made meanwhile go together into the next. Calls that started together finish their
 * turns together (a barge-in reaches them all at once): one statement then, not one per call.
 * Statements run in order, so a call's older snapshot never lands after a newer one; within one,
 * an entry saved twice is written as it was last.
 */
function gatheredProgress(write: (rows: ProgressRow[]) => Promise<void>) {
  /** The next statement's rows (by call, kind and position) while they are still gathered. */
  let gathering: { rows: Map<string, ProgressRow>; statement: Promise<void> } | null = null;
  let tail: Promise<void> = Promise.resolve();
  /** The statement that holds each call's latest save, until it has run. */
  const latest = new Map<string, Promise<void>>();
  return {
    save(callId: string, entries: readonly CallEntryWrite[]): Promise<void> {
      if (entries.length === 0) return latest.get(callId) ?? Promise.resolve();
      if (!gathering) {
        const rows = new Map<string, ProgressRow>();
        const statement = tail.then(() => {
          gathering = null;
          return write([...rows.values()]);
        });
        // The chain itself never rejects: each save's caller handles its statement's failure.
        tail = statement.catch(() => undefined);
        gathering = { rows, statement };
      }
      for (const entry of entries) gathering.rows.set(`${callId} ${entry.kind} ${entry.position}`, { ...entry, call_id: callId });
      const { statement } = gathering;
      latest.set(callId, statement);
      void statement.catch(() => undefined).finally(() => {
        if (latest.get(callId) === statement) latest.delete(callId);
      });
      return statement;
    },
    /** Once the call's saves so far have been written (or failed). */
    settled: (callId: string): Promise<void> => (latest.get(callId) ?? Promise.resolve()).catch(() => undefined),
  };
}
