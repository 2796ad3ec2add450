/**
 * A call of an instance that is gone (no lease of that name), with the transcript turns it saved as
 * it went and no final write: what the instances' sweep closes. Written in one transaction, or an
 * app's sweep could close the call between the two inserts, before it has any turn.
 */
import type { TranscriptEntry } from "../src/shared/calls.ts";
import type { Db } from "../src/server/db/client.ts";
import { callEntries, calls } from "../src/server/db/schema.ts";

export async function insertOrphanedCall(
  db: Db,
  call: { organizationId: string; assistantId: string; instanceId: string },
  transcript: readonly TranscriptEntry[],
): Promise<string> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .insert(calls)
      .values({ ...call, startTime: new Date(), logs: { isTest: true, transcript: [], toolsUsed: [] } })
      .returning({ id: calls.id });
    await tx.insert(callEntries).values(transcript.map((body, position) => ({ callId: row!.id, kind: "transcript" as const, position, body })));
    return row!.id;
  });
}
