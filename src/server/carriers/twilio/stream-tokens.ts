/**
 * The per-call token of a Twilio media stream: issued by the voice webhook into the TwiML's
 * `<Parameter>` (never the URL, which ends up in logs), redeemed once when the stream's
 * `start` message arrives. Signed (secrets/signed-tokens.ts) and short-lived: Twilio opens the
 * stream within a second or two of receiving the TwiML.
 */
import { createSignedTokens } from "../../secrets/signed-tokens.ts";
import type { CounterStore } from "../../shared-state/index.ts";

export const STREAM_TOKEN_TTL_MS = 60_000;
const SIGNING_LABEL = "switchboard/twilio-stream-token/v1";

export interface StreamClaims extends Record<string, string> {
  /** phone_numbers.id */
  numberId: string;
  callSid: string;
  from: string;
  to: string;
  /** An outbound call: the id of the record made when it was dialled ("" for an inbound call). */
  callId: string;
}

export function createStreamTokens(secret: string, counters: CounterStore, ttlMs = STREAM_TOKEN_TTL_MS) {
  return createSignedTokens<StreamClaims>(secret, SIGNING_LABEL, ttlMs, counters);
}

export type StreamTokens = ReturnType<typeof createStreamTokens>;
