/**
 * The campaign dialler: one job on the durable queue per running campaign ("campaign.tick"),
 * re-sent by itself every TICK_MS while the campaign runs (and after a restart by `resumeAll`).
 * A tick is safe to repeat and to run on two instances at once: every decision is a statement
 * on the database (campaigns.repo.ts: `settleEnded`, `claimDue` under a per-campaign lock), so
 * each contact is dialled once and the campaign's concurrent calls and calls per minute are
 * never exceeded across instances. Each tick:
 *
 * 1. settles contacts whose call ended (outcome; retry if the campaign retries that outcome);
 * 2. stops if the campaign is not running (Pause and Cancel take effect at the next tick; calls
 *    in progress finish, and ticks go on settling them until none is left);
 * 3. waits (saying why) before its start time, or while it calls no one and no due contact's
 *    time zone is in a window;
 * 4. claims due contacts in open zones within the limits, and dials each through the outbound
 *    service, which checks the do-not-call list again right before the call;
 * 5. completes the campaign when every contact is done.
 */
import { CAMPAIGN_TEXTS, inWindows } from "../../../shared/campaigns.ts";
import { TWILIO_UNREACHABLE } from "../../../shared/reachability.ts";
import type { Db } from "../../db/client.ts";
import { AppError } from "../../errors.ts";
import type { JobQueue } from "../../jobs/job-queue.ts";
import type { OutboundService } from "../outbound/outbound.service.ts";
import * as repo from "./campaigns.repo.ts";

export const TICK_JOB = "campaign.tick";
export const TICK_MS = 1000;

export interface DiallerDeps {
  db: Db;
  jobs: JobQueue;
  outbound: OutboundService;
  /** The clock windows, start times, retries and pacing are read on (tests control it). */
  now: () => Date;
  /** Told when a campaign completes (webhooks). */
  onCompleted?: (campaign: repo.CampaignRow) => void;
  logger: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

export function createDialler(deps: DiallerDeps) {
  const { db, jobs, outbound, now } = deps;

  /** The next tick; the key (campaign, second) keeps two instances from queueing the same one twice. */
  const schedule = (id: string, afterMs = TICK_MS) =>
    jobs.send(TICK_JOB, { campaignId: id }, { startAfter: afterMs, key: `${id}:${Math.floor((Date.now() + afterMs) / 1000)}` });

  async function dial(c: repo.CampaignRow, contact: repo.ContactRow, at: Date): Promise<void> {
    // Paused or cancelled since this tick claimed the contact: not dialled (calls already placed finish).
    if (!(await repo.isRunning(db, c.id))) return repo.unclaim(db, c.id, contact.row);
    try {
      const call = await outbound.place(
        c.organizationId,
        { assistant_id: c.assistantId ?? "", phone_number_id: c.phoneNumberId ?? "", to: contact.phone, variables: contact.variables },
        { campaignId: c.id },
      );
      await repo.setContactCall(db, c.id, contact.row, call.id);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      if (err.code === "do_not_call") return repo.settleWithout(db, c.id, contact.row, "dnc", c.retry, at);
      // The account's own limit (other calls of the user), or a server Twilio cannot reach (a
      // restart since Start changed PUBLIC_URL): not this contact's fault, try again.
      if (err.code === "concurrent_call_limit" || err.code === TWILIO_UNREACHABLE) return repo.unclaim(db, c.id, contact.row);
      deps.logger.warn({ campaignId: c.id, row: contact.row, code: err.code, message: err.message }, "campaign call refused");
      return repo.settleWithout(db, c.id, contact.row, "failed", c.retry, at);
    }
  }

  async function tick(campaignId: string): Promise<void> {
    const at = now();
    const c = await repo.findForDialler(db, campaignId);
    if (!c) return;
    await repo.settleEnded(db, c.id, c.retry, at);
    if (c.status !== "running") {
      // Paused or cancelled: nothing more is dialled, but the calls already placed still end and
      // are counted as they do (the chain stops once none is left; Resume starts it again).
      if (await repo.isCalling(db, c.id)) await schedule(c.id);
      return;
    }
    if (c.startAt && c.startAt > at) {
      await repo.setWaiting(db, c.id, CAMPAIGN_TEXTS.beforeStart(c.startAt.toISOString()));
      await schedule(c.id);
      return;
    }
    const zones = await repo.dueZones(db, c.id, at);
    const open = { named: [] as string[], campaignZone: false };
    for (const zone of zones) {
      if (!inWindows(c.windows, zone ?? c.timezone, at)) continue;
      if (zone === null) open.campaignZone = true;
      else open.named.push(zone);
    }
    const claimed = await repo.claimDue(db, { id: c.id, maxConcurrent: c.maxConcurrentCalls, perMinute: c.callsPerMinute }, open, at);
    await Promise.all(claimed.map((contact) => dial(c, contact, at)));
    // Waiting only when it calls no one: a contact whose own zone is open may be on the line
    // while every contact still due is outside its window.
    const closed = zones.length > 0 && open.named.length === 0 && !open.campaignZone;
    await repo.setWaiting(db, c.id, closed && !(await repo.isCalling(db, c.id)) ? CAMPAIGN_TEXTS.outsideWindows : null);
    if (await repo.completeIfDone(db, c.id)) {
      deps.onCompleted?.(c);
      return;
    }
    await schedule(c.id);
  }

  jobs.register<{ campaignId: string }>(TICK_JOB, (data) => tick(data.campaignId), { concurrency: 4, retryDelaysMs: [1000, 5000], timeoutMs: 5 * 60_000 });

  return {
    tick,
    /** Starts (or resumes) the campaign's ticks. */
    kick: (id: string) => schedule(id, 0),
    /** After a restart: every running campaign goes on (a lost job chain is re-made; duplicates are harmless). */
    async resumeAll(): Promise<void> {
      for (const id of await repo.runningCampaignIds(db)) await schedule(id, 0);
    },
  };
}

export type Dialler = ReturnType<typeof createDialler>;
