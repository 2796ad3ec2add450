/**
 * The dialogs of SIP calls whose instance died, read by the instance whose sweep closed their
 * records (instances/instance-lease.ts): the ids come from that sweep, across organisations, as
 * the sweep itself runs.
 */
import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { calls } from "../../db/schema.ts";
import type { DialogState } from "../sip/dialog.ts";

const isDialogState = (v: unknown): v is DialogState => {
  const d = v as Partial<DialogState> | null;
  return (
    !!d &&
    typeof d.callId === "string" &&
    typeof d.localHeader === "string" &&
    typeof d.remoteHeader === "string" &&
    typeof d.remoteTarget === "string" &&
    Array.isArray(d.routeSet) &&
    d.routeSet.every((r) => typeof r === "string") &&
    Number.isInteger(d.localSeq) &&
    (d.transport === "UDP" || d.transport === "TCP" || d.transport === "TLS")
  );
};

export async function orphanedDialogs(db: Db, callIds: string[]): Promise<{ id: string; dialog: DialogState }[]> {
  if (callIds.length === 0) return [];
  const rows = await db
    .select({ id: calls.id, dialog: calls.sipDialog })
    .from(calls)
    .where(and(inArray(calls.id, callIds), eq(calls.carrier, "sip"), isNotNull(calls.sipDialog)));
  return rows.flatMap((r) => (isDialogState(r.dialog) ? [{ id: r.id, dialog: r.dialog }] : []));
}
