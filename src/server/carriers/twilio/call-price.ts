/**
 * Twilio's price of a phone call, fetched after the call has ended. The status callback carries
 * no price; the Calls API gives `price` (a negative decimal string in `price_unit`) only once
 * Twilio has rated the call, some time after it completed — null before (protocols §3). So the
 * fetch is a job: first some time after the end, retried while the price is still null.
 */
import type { FastifyBaseLogger } from "fastify";
import type { ModuleContext } from "../../context.ts";
import type { CredentialsService } from "../../modules/credentials/credentials.service.ts";
import { findCallForPricing, storeTelephonyCost } from "./inbound.repo.ts";
import { createTwilioRest, TwilioError } from "./twilio-client.ts";

export const CALL_PRICE_JOB = "telephony.call-price";

export interface CallPriceTiming {
  /** After the completed status callback: Twilio rarely has a price sooner. */
  firstDelayMs?: number;
  /** While the price is still null (or Twilio cannot be reached): then the call stays without one. */
  retryDelaysMs?: readonly number[];
}

const FIRST_DELAY_MS = 60_000;
const RETRY_DELAYS_MS = [2 * 60_000, 10 * 60_000, 60 * 60_000, 6 * 60 * 60_000];

export interface CallPriceDeps {
  ctx: Pick<ModuleContext, "db" | "config" | "jobs">;
  credentials: CredentialsService;
  logger: FastifyBaseLogger;
  timing?: CallPriceTiming;
}

/** Registers the job (while the services are made, before the queue starts); returns how to ask for a call's price. */
export function createCallPricing({ ctx, credentials, logger, timing = {} }: CallPriceDeps) {
  const { db, config, jobs } = ctx;

  jobs.register<{ callId: string }>(
    CALL_PRICE_JOB,
    async ({ callId }, job) => {
      const call = await findCallForPricing(db, callId);
      if (!call?.callSid || call.telephonyCost !== null) return;
      const pair = await credentials.readTwilio(call.organizationId).catch(() => null);
      // Credentials removed (or unreadable) since the call: nobody can ask Twilio any more.
      if (!pair) return;
      let fetched;
      try {
        fetched = await createTwilioRest(pair, config.twilioApiBase).fetchCall(call.callSid);
      } catch (err) {
        // Refused for good (the call is gone, the credentials changed): a retry would get the same.
        if (err instanceof TwilioError && (err.isNotFound || err.isAuthFailure)) return logger.warn({ callId, err: err.message }, "Twilio gave no price for the call");
        throw err;
      }
      if (fetched.price === null) {
        if (job.lastAttempt) return logger.warn({ callId }, "Twilio has not priced the call; it keeps only its provider cost");
        throw new Error("Twilio has not priced the call yet");
      }
      // Twilio bills in the account's currency; the records are in USD (architecture: money in USD).
      if ((fetched.priceUnit ?? "USD").toUpperCase() !== "USD") return logger.warn({ callId, unit: fetched.priceUnit }, "Twilio priced the call in another currency than USD");
      await storeTelephonyCost(db, callId, Math.abs(fetched.price));
    },
    { concurrency: 2, retryDelaysMs: timing.retryDelaysMs ?? RETRY_DELAYS_MS, timeoutMs: 60_000 },
  );

  return {
    /** Once per call (keyed): after Twilio says the call completed. Never throws: the webhook's answer does not depend on it. */
    async request(callId: string): Promise<void> {
      try {
        await jobs.send(CALL_PRICE_JOB, { callId }, { startAfter: timing.firstDelayMs ?? FIRST_DELAY_MS, key: callId });
      } catch (err) {
        logger.error({ err, callId }, "could not queue the fetch of Twilio's price");
      }
    },
  };
}

export type CallPricing = ReturnType<typeof createCallPricing>;
