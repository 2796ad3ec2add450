/**
 * Transfers of a live phone call to a person (ADR 028).
 *
 * 1. The call engine's `transfer_call` (voice/builtins.ts), once the caller has heard the
 *    hand-off sentence, updates the live call over REST with TwiML
 *    `<Dial action=DIAL_RESULT><Number url=WHISPER>+44…</Number></Dial>` (`<Sip url=WHISPER>` for a
 *    destination that is a SIP address: a PBX's queue or extension). Twilio then ends the
 *    media stream (the session ends "Transferred to <label>") and rings the destination.
 * 2. POST WHISPER — Twilio asks what to play to the person who answers, before the caller is
 *    put through: `<Say>` of the summary.
 * 3. POST DIAL_RESULT — the `<Dial>` is over. Answered: the call simply ends. Busy, no answer,
 *    failed: the caller hears a short message and goes back to the assistant through a new
 *    `<Connect><Stream>` (a new call record), or — when the number no longer has an assistant —
 *    hears a goodbye. The transferred record's ended reason says which.
 *
 * Both URLs carry a signed single-use token (the summary, the call, the number): nothing in
 * them can be forged, and Twilio's signature is checked as for every webhook.
 */
import twilio from "twilio";
import { HANDOFF_TEXTS } from "../../../shared/calls.ts";
import { isSipDestination, type TransferDestination } from "../../../shared/assistants.ts";
import type { Db } from "../../db/client.ts";
import { replaceEndedReason } from "./inbound.repo.ts";
import type { CounterStore } from "../../shared-state/index.ts";
import { createSignedTokens } from "../../secrets/signed-tokens.ts";
import { TRANSFER_RING_S, type CallTransfer } from "../../voice/builtins.ts";
import { STREAM_TOKEN_PARAMETER } from "../../voice/transports/twilio-codec.ts";
import type { StreamClaims, StreamTokens } from "./stream-tokens.ts";
import type { TwilioRest } from "./twilio-client.ts";
import { publicWsUrlOf } from "./twilio-signature.ts";

export const WHISPER_PATH = "/telephony/twilio/whisper";
export const DIAL_RESULT_PATH = "/telephony/twilio/dial-result";

interface WhisperClaims extends Record<string, string> {
  numberId: string;
  summary: string;
}
interface DialClaims extends StreamClaims {
  label: string;
}

export function createHandoffTokens(secret: string, counters: CounterStore) {
  return {
    // Fetched when the destination answers: within the ring time of the dial.
    whisper: createSignedTokens<WhisperClaims>(secret, "switchboard/twilio-whisper/v1", 10 * 60_000, counters),
    // Called when the conversation with the person ends: it may last hours.
    dial: createSignedTokens<DialClaims>(secret, "switchboard/twilio-dial-result/v1", 12 * 60 * 60_000, counters),
  };
}
export type HandoffTokens = ReturnType<typeof createHandoffTokens>;

/** The TwiML the live call is updated with: dial the destination, whisper the summary to whoever answers. */
export function transferTwiml(publicUrl: string, tokens: HandoffTokens, call: StreamClaims, destination: TransferDestination, summary: string): string {
  const whisper = tokens.whisper.issue({ numberId: call.numberId, summary });
  const dialToken = tokens.dial.issue({ ...call, label: destination.label });
  const response = new twilio.twiml.VoiceResponse();
  const dial = response.dial({ action: `${publicUrl}${DIAL_RESULT_PATH}?t=${dialToken}`, method: "POST", timeout: TRANSFER_RING_S, callerId: call.to });
  const briefing = { url: `${publicUrl}${WHISPER_PATH}?t=${whisper}`, method: "POST" } as const;
  if (isSipDestination(destination.phone_number)) dial.sip(briefing, twilioSipUri(destination.phone_number));
  else dial.number(briefing, destination.phone_number);
  return response.toString();
}

/**
 * A SIP destination as Twilio's `<Sip>` takes it: Twilio dials `sip:` URIs only and asks for TLS
 * with `transport=tls`, so `sips:` becomes that.
 */
export function twilioSipUri(uri: string): string {
  if (!uri.startsWith("sips:")) return uri;
  const plain = `sip:${uri.slice("sips:".length)}`;
  return /;transport=/i.test(plain) ? plain.replace(/;transport=[^;]*/i, ";transport=tls") : `${plain};transport=tls`;
}

/** A CallTransfer for one phone call: the REST update of that call. */
export function phoneTransfer(rest: () => Promise<TwilioRest>, publicUrl: string, tokens: HandoffTokens, call: StreamClaims): CallTransfer {
  return {
    async transfer(destination, summary) {
      await (await rest()).updateCallTwiml(call.callSid, transferTwiml(publicUrl, tokens, call, destination, summary));
    },
  };
}

export function whisperTwiml(summary: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say(summary);
  return response.toString();
}

/** Twilio's DialCallStatus values meaning the person never took the call. */
const NOT_ANSWERED = new Set(["busy", "no-answer", "failed", "canceled"]);

export function dialWasAnswered(status: string | undefined): boolean {
  return !NOT_ANSWERED.has(status ?? "");
}

/** Back to the assistant after an unanswered transfer: a short message, then a new stream. */
export function returnTwiml(publicUrl: string, mediaPath: string, streamToken: string): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say(HANDOFF_TEXTS.notAnswered);
  response.connect().stream({ url: publicWsUrlOf(publicUrl, mediaPath) }).parameter({ name: STREAM_TOKEN_PARAMETER, value: streamToken });
  return response.toString();
}

export function goodbyeTwiml(answered: boolean): string {
  const response = new twilio.twiml.VoiceResponse();
  if (!answered) response.say(HANDOFF_TEXTS.notAnsweredGoodbye);
  response.hangup();
  return response.toString();
}

/** The transferred record says what became of the transfer. Only that record: matched by its reason. */
export async function noteTransferOutcome(db: Db, callSid: string, label: string, reason: string): Promise<void> {
  await replaceEndedReason(db, callSid, HANDOFF_TEXTS.transferredTo(label), reason);
}

export type { StreamTokens };
