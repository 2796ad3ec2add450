/**
 * Campaigns and their contacts. The dialler's two statements that must hold across instances
 * live here: `claimDue` (under a per-campaign transaction lock: count the calls in progress and
 * the dials of the last minute, then mark the contacts to dial — so no two instances can both
 * take the last slot or the same contact) and `settleEnded` (a contact whose call has ended gets
 * its outcome, and a retry when its outcome asks for one).
 */
import { and, asc, count, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { SuccessValue } from "../../../shared/analysis.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { CONTACT_OUTCOMES, type CampaignCounts, type CampaignRetry, type CampaignStatus, type CampaignSuccess, type ContactOutcome } from "../../../shared/campaigns.ts";
import type { Db } from "../../db/client.ts";
import { afterKey, orderByKey, pageNewestFirst, type KeysetOrder } from "../../db/keyset.ts";
import { campaignContacts, campaigns, calls } from "../../db/schema.ts";
import type { Keyset } from "../../http/pages.ts";

export type CampaignRow = typeof campaigns.$inferSelect;
export type ContactRow = typeof campaignContacts.$inferSelect;
export type NewContact = Pick<ContactRow, "row" | "phone" | "timezone" | "variables">;

export async function insertCampaign(db: Db, values: typeof campaigns.$inferInsert): Promise<string> {
  const [row] = await db.insert(campaigns).values(values).returning({ id: campaigns.id });
  return row!.id;
}

export async function insertContacts(db: Db, campaignId: string, rows: NewContact[]): Promise<void> {
  if (rows.length > 0) await db.insert(campaignContacts).values(rows.map((r) => ({ ...r, campaignId })));
}

export async function deleteContacts(db: Db, campaignId: string): Promise<void> {
  await db.delete(campaignContacts).where(eq(campaignContacts.campaignId, campaignId));
}

export async function deleteCampaign(db: Db, id: string): Promise<void> {
  await db.delete(campaigns).where(eq(campaigns.id, id));
}

/** A page of the organisation's campaigns, newest first: the keyset in SQL (db/keyset.ts). */
export const pageCampaigns = (db: Db, organizationId: string, query: PageQuery): Promise<Page<CampaignRow>> =>
  pageNewestFirst(db, campaigns, eq(campaigns.organizationId, organizationId), query);

export async function findCampaign(db: Db, organizationId: string, id: string): Promise<CampaignRow | null> {
  const [row] = await db.select().from(campaigns).where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.id, id)));
  return row ?? null;
}

/** The dialler's read (no owner: it acts for whoever started the campaign). */
export async function findForDialler(db: Db, id: string): Promise<CampaignRow | null> {
  const [row] = await db.select().from(campaigns).where(eq(campaigns.id, id));
  return row ?? null;
}

export async function isRunning(db: Db, id: string): Promise<boolean> {
  const [row] = await db.select({ id: campaigns.id }).from(campaigns).where(and(eq(campaigns.id, id), eq(campaigns.status, "running")));
  return row !== undefined;
}

export async function runningCampaignIds(db: Db): Promise<string[]> {
  const rows = await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.status, "running"));
  return rows.map((r) => r.id);
}

/** Moves the campaign from one of `from` to `to`; false when it was in none of them. */
export async function setStatus(db: Db, organizationId: string, id: string, from: readonly CampaignStatus[], to: CampaignStatus): Promise<boolean> {
  const rows = await db
    .update(campaigns)
    .set({ status: to, ...(to === "running" ? {} : { waitingReason: null }) })
    .where(and(eq(campaigns.organizationId, organizationId), eq(campaigns.id, id), inArray(campaigns.status, [...from])))
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

export async function setWaiting(db: Db, id: string, reason: string | null): Promise<void> {
  await db.update(campaigns).set({ waitingReason: reason }).where(and(eq(campaigns.id, id), eq(campaigns.status, "running")));
}

export async function completeIfDone(db: Db, id: string): Promise<boolean> {
  const rows = await db
    .update(campaigns)
    .set({ status: "completed", waitingReason: null })
    .where(
      and(
        eq(campaigns.id, id),
        eq(campaigns.status, "running"),
        sql`NOT EXISTS (SELECT 1 FROM ${campaignContacts} WHERE ${campaignContacts.campaignId} = ${id} AND ${campaignContacts.state} <> 'done')`,
      ),
    )
    .returning({ id: campaigns.id });
  return rows.length > 0;
}

export async function countsOf(db: Db, ids: string[]): Promise<Map<string, CampaignCounts>> {
  const result = new Map<string, CampaignCounts>();
  if (ids.length === 0) return result;
  const rows = await db
    .select({
      id: campaignContacts.campaignId,
      state: campaignContacts.state,
      outcome: campaignContacts.lastOutcome,
      retry: sql<boolean>`${campaignContacts.attempts} > 0`,
      n: count(),
    })
    .from(campaignContacts)
    .where(inArray(campaignContacts.campaignId, ids))
    .groupBy(campaignContacts.campaignId, campaignContacts.state, campaignContacts.lastOutcome, sql`${campaignContacts.attempts} > 0`);
  for (const id of ids) result.set(id, { pending: 0, calling: 0, completed: 0, no_answer: 0, busy: 0, failed: 0, voicemail: 0, dnc: 0, retries_scheduled: 0 });
  for (const r of rows) {
    const c = result.get(r.id)!;
    if (r.state === "pending") {
      c.pending += r.n;
      if (r.retry) c.retries_scheduled += r.n;
    } else if (r.state === "calling") c.calling += r.n;
    else if (r.outcome) c[r.outcome] += r.n;
  }
  return result;
}

/** Per campaign, success by outcome: done contacts whose last call the analysis scored, by outcome and success value. */
export async function successOf(db: Db, ids: string[]): Promise<Map<string, CampaignSuccess>> {
  const result = new Map<string, CampaignSuccess>(ids.map((id) => [id, []]));
  if (ids.length === 0) return result;
  const value = sql<SuccessValue>`${calls.analysis} -> 'success' -> 'value'`;
  const rows = await db
    .select({ id: campaignContacts.campaignId, outcome: campaignContacts.lastOutcome, value, n: count() })
    .from(campaignContacts)
    .innerJoin(calls, eq(calls.id, campaignContacts.callId))
    .where(
      and(
        inArray(campaignContacts.campaignId, ids),
        eq(campaignContacts.state, "done"),
        sql`${calls.analysis} ->> 'status' = 'done'`,
        sql`jsonb_typeof(${value}) IN ('string', 'number')`,
      ),
    )
    .groupBy(campaignContacts.campaignId, campaignContacts.lastOutcome, value);
  for (const id of ids) {
    const mine = rows.filter((r) => r.id === id && r.outcome !== null);
    const byOutcome = CONTACT_OUTCOMES.map((outcome) => {
      const values = mine
        .filter((r) => r.outcome === outcome)
        .map((r) => ({ value: r.value, count: r.n }))
        .sort((a, b) => b.count - a.count || String(a.value).localeCompare(String(b.value)));
      return { outcome, analysed: values.reduce((n, v) => n + v.count, 0), values };
    });
    result.set(id, byOutcome.filter((o) => o.analysed > 0));
  }
  return result;
}

/** Contacts page in row order (the CSV's order), by the table's key (campaign_id, row). */
export const contactOrder: KeysetOrder = { parts: [{ column: campaignContacts.row, kind: "integer" }], desc: false };

/**
 * Up to `limit` contacts after the keyset `after` (none: from the first), and no more than about
 * `maxBytes` of phones and variables (at least one contact): their sizes are read first, so a
 * page of wide rows is cut short before it is loaded. `more`: a next page may follow.
 */
export async function contactsPage(db: Db, campaignId: string, limit: number, after: Keyset | undefined, maxBytes: number) {
  const past = and(eq(campaignContacts.campaignId, campaignId), after ? afterKey(contactOrder, after) : undefined);
  const sizes = await db
    .select({ row: campaignContacts.row, bytes: sql<number>`octet_length(${campaignContacts.variables}::text) + octet_length(${campaignContacts.phone})`.mapWith(Number) })
    .from(campaignContacts)
    .where(past)
    .orderBy(...orderByKey(contactOrder))
    // One more than asked: whether a next page follows, without an empty last page.
    .limit(limit + 1);
  let total = 0;
  let taken = 0;
  for (const s of sizes) {
    if (taken === limit || (taken > 0 && total + s.bytes > maxBytes)) break;
    total += s.bytes;
    taken += 1;
  }
  if (taken === 0) return { rows: [], more: false };
  const rows = await db
    .select()
    .from(campaignContacts)
    .where(and(past, lte(campaignContacts.row, sizes[taken - 1]!.row)))
    .orderBy(...orderByKey(contactOrder));
  return { rows, more: taken < sizes.length };
}

/** The time zones (null = the campaign's) of contacts due now: the dialler opens only those in a window. */
export async function dueZones(db: Db, campaignId: string, now: Date): Promise<(string | null)[]> {
  const rows = await db
    .selectDistinct({ tz: campaignContacts.timezone })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.state, "pending"), or(isNull(campaignContacts.nextAttemptAt), lte(campaignContacts.nextAttemptAt, now))));
  return rows.map((r) => r.tz);
}

/** Seconds' worth of calls the pacing may start at once (after a start, a pause or a full house). */
export const PACE_BURST_SECONDS = 10;

/**
 * The campaign's pacing as a token bucket: `perMinute / 60` tokens a second, at most
 * PACE_BURST_SECONDS' worth held, full when never used. Budgeting from the time since the last
 * fill (not one tick's share) keeps the rate whatever the ticks' spacing; kept on the campaign
 * row, it is shared by every instance.
 */
export function paceTokens(perMinute: number, stored: { tokens: number | null; at: Date | null }, now: Date): number {
  const capacity = Math.max(1, (perMinute * PACE_BURST_SECONDS) / 60);
  if (stored.tokens === null || stored.at === null) return capacity;
  const elapsedMs = Math.max(0, now.getTime() - stored.at.getTime());
  return Math.min(capacity, stored.tokens + (elapsedMs * perMinute) / 60_000);
}

/** Whether any of the campaign's contacts is on a call now (dialled, ringing or talking). */
export async function isCalling(db: Db, campaignId: string): Promise<boolean> {
  const [row] = await db
    .select({ row: campaignContacts.row })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.state, "calling")))
    .limit(1);
  return row !== undefined;
}

/**
 * Marks due contacts in `zones` as calling, within the campaign's limits counted in the
 * database under a per-campaign lock: calls in progress below `maxConcurrent`; with a
 * `perMinute`, the pacing's tokens (`paceTokens`) and never more than `perMinute` dials in the
 * 60 s before `now`. Returns the contacts to dial.
 */
export async function claimDue(
  db: Db,
  c: { id: string; maxConcurrent: number; perMinute: number | null },
  zones: { named: string[]; campaignZone: boolean },
  now: Date,
): Promise<ContactRow[]> {
  if (zones.named.length === 0 && !zones.campaignZone) return [];
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtext(${`campaign:${c.id}`}))`);
    const [calling] = await tx.select({ n: count() }).from(campaignContacts).where(and(eq(campaignContacts.campaignId, c.id), eq(campaignContacts.state, "calling")));
    let want = c.maxConcurrent - (calling?.n ?? 0);
    let tokens: number | null = null;
    if (c.perMinute !== null) {
      const [pace] = await tx.select({ tokens: campaigns.paceTokens, at: campaigns.pacedAt }).from(campaigns).where(eq(campaigns.id, c.id));
      tokens = paceTokens(c.perMinute, pace ?? { tokens: null, at: null }, now);
      const minuteAgo = new Date(now.getTime() - 60_000);
      const [recent] = await tx
        .select({ n: count() })
        .from(campaignContacts)
        .where(and(eq(campaignContacts.campaignId, c.id), gt(campaignContacts.lastDialledAt, minuteAgo), lte(campaignContacts.lastDialledAt, now)));
      want = Math.min(want, Math.floor(tokens), c.perMinute - (recent?.n ?? 0));
    }
    const inZone = or(
      zones.named.length > 0 ? inArray(campaignContacts.timezone, zones.named) : undefined,
      zones.campaignZone ? isNull(campaignContacts.timezone) : undefined,
    );
    const due =
      want <= 0
        ? []
        : await tx
            .select({ row: campaignContacts.row })
            .from(campaignContacts)
            .where(and(eq(campaignContacts.campaignId, c.id), eq(campaignContacts.state, "pending"), or(isNull(campaignContacts.nextAttemptAt), lte(campaignContacts.nextAttemptAt, now)), inZone))
            .orderBy(sql`${campaignContacts.nextAttemptAt} NULLS FIRST`, asc(campaignContacts.row))
            .limit(want)
            .for("update", { skipLocked: true });
    if (tokens !== null) {
      // The bucket is filled up to `now` whether or not anything is dialled; a clock behind the last fill (another instance's) takes nothing.
      await tx
        .update(campaigns)
        .set({ paceTokens: tokens - due.length, pacedAt: sql`GREATEST(${campaigns.pacedAt}, ${now.toISOString()}::timestamptz)` })
        .where(eq(campaigns.id, c.id));
    }
    if (due.length === 0) return [];
    return tx
      .update(campaignContacts)
      .set({ state: "calling", attempts: sql`${campaignContacts.attempts} + 1`, lastDialledAt: now, callId: null })
      .where(and(eq(campaignContacts.campaignId, c.id), inArray(campaignContacts.row, due.map((d) => d.row))))
      .returning();
  });
}

export async function setContactCall(db: Db, campaignId: string, row: number, callId: string): Promise<void> {
  await db.update(campaignContacts).set({ callId }).where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.row, row)));
}

/** A dial that did not happen (the account's limit): back to pending, the attempt not counted. */
export async function unclaim(db: Db, campaignId: string, row: number): Promise<void> {
  await db
    .update(campaignContacts)
    .set({ state: "pending", attempts: sql`${campaignContacts.attempts} - 1`, lastDialledAt: null })
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.row, row)));
}

/** A contact finished without a call placed (do-not-call, Twilio refused): its outcome, retried if asked. */
export async function settleWithout(db: Db, campaignId: string, row: number, outcome: ContactOutcome, retry: CampaignRetry, now: Date): Promise<void> {
  await db
    .update(campaignContacts)
    .set(settlement(sql`${outcome}`, retry, now))
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.row, row), eq(campaignContacts.state, "calling")));
}

function settlement(outcome: ReturnType<typeof sql>, retry: CampaignRetry, now: Date) {
  const retryOn = sql`${outcome} = ANY(${sql.raw(`ARRAY[${retry.on.map((o) => `'${o}'`).join(",") || "NULL"}]::text[]`)})`;
  const again = sql`(${retryOn} AND ${campaignContacts.attempts} < ${retry.max_attempts})`;
  return {
    lastOutcome: sql`${outcome}`,
    state: sql`CASE WHEN ${again} THEN 'pending' ELSE 'done' END`,
    nextAttemptAt: sql`CASE WHEN ${again} THEN ${new Date(now.getTime() + retry.delay_seconds * 1000).toISOString()}::timestamptz ELSE NULL END`,
  };
}

/** What an ended call means for its contact (calls' reason and Twilio's status). */
const OUTCOME_OF_CALL = sql`(SELECT CASE
  WHEN c.ended_reason = 'Voicemail' THEN 'voicemail'
  WHEN c.provider_status = 'busy' THEN 'busy'
  WHEN c.provider_status = 'no-answer' THEN 'no_answer'
  WHEN c.provider_status IN ('failed', 'canceled') OR c.status = 'error' THEN 'failed'
  ELSE 'completed' END FROM ${calls} c WHERE c.id = ${campaignContacts.callId} AND c.end_time IS NOT NULL)`;

/** Contacts whose call has ended get its outcome; a retry is scheduled when the campaign asks for one. Returns how many settled. */
export async function settleEnded(db: Db, campaignId: string, retry: CampaignRetry, now: Date): Promise<number> {
  const rows = await db
    .update(campaignContacts)
    .set(settlement(OUTCOME_OF_CALL, retry, now))
    .where(
      and(
        eq(campaignContacts.campaignId, campaignId),
        eq(campaignContacts.state, "calling"),
        sql`EXISTS (SELECT 1 FROM ${calls} c WHERE c.id = ${campaignContacts.callId} AND c.end_time IS NOT NULL)`,
      ),
    )
    .returning({ row: campaignContacts.row });
  return rows.length;
}
