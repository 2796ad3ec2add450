/**
 * Twilio's side of outbound calls (calls we dial with Calls.create). Every URL we hand Twilio
 * carries the call record's id (`?call=`), so a callback finds its record even before the
 * Calls.create answer (with the CallSid) has been stored; the signature is checked with the
 * record owner's auth token like any other webhook.
 *
 * - voice: the callee answered; the same `<Connect><Stream>` as an inbound call, its token naming
 *   the record, so the call session takes that record over (calls.repo.ts).
 * - status: Twilio's progress (initiated, ringing, in-progress) and its end. An end the stream
 *   never saw (busy, no answer, failed, cancelled) closes the record with a readable reason.
 * - amd: a machine answered (AnsweredBy machine_end_*, after the beep): hang up, or say the
 *   assistant's voicemail message and hang up. The record's ended reason becomes "Voicemail".
 */
import twilio from "twilio";
import type { Voicemail } from "../../../shared/assistants.ts";
import { OUTBOUND_ENDED, TWILIO_CALL_STATUSES, type TwilioCallStatus } from "../../../shared/outbound.ts";
import { fillPlaceholders } from "../../../shared/variables.ts";
import type { Db } from "../../db/client.ts";
import * as repo from "../../modules/outbound/outbound.repo.ts";

export const AMD_PATH = "/telephony/twilio/amd";
/** Twilio's progress callbacks of an outbound call. */
export const STATUS_PATH = "/telephony/twilio/status";

/** The public URLs of one outbound call (each names its record). */
export function outboundUrls(publicUrl: string, callId: string, paths: { voice: string; status: string }) {
  const q = `?call=${encodeURIComponent(callId)}`;
  return { voice: `${publicUrl}${paths.voice}${q}`, status: `${publicUrl}${paths.status}${q}`, amd: `${publicUrl}${AMD_PATH}${q}` };
}

/** The `call` parameter of a callback's path, if any. */
export function outboundCallIdOf(pathAndQuery: string): string | null {
  const id = new URL(pathAndQuery, "http://x").searchParams.get("call");
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

const isStatus = (s: string | undefined): s is TwilioCallStatus => (TWILIO_CALL_STATUSES as readonly string[]).includes(s ?? "");

/** The readable ended reason of a call Twilio ended before (or without) the assistant. */
export function endedReasonOf(status: TwilioCallStatus, params: Record<string, string>, answeredBy: string | null): string {
  if (answeredBy && (answeredBy.startsWith("machine") || answeredBy === "fax")) return OUTBOUND_ENDED.voicemail;
  switch (status) {
    case "busy":
      return OUTBOUND_ENDED.busy;
    case "no-answer":
      return OUTBOUND_ENDED.noAnswer;
    case "canceled":
      return OUTBOUND_ENDED.cancelled;
    case "failed": {
      const why = params["ErrorMessage"] || (params["SipResponseCode"] ? `SIP ${params["SipResponseCode"]}` : "the call could not be connected");
      return OUTBOUND_ENDED.failed(why);
    }
    default:
      return OUTBOUND_ENDED.completed;
  }
}

/**
 * What a status callback changes on an outbound record; returns the final status when the call
 * is over, and whether this callback closed a record the assistant never had (`unanswered`).
 */
export async function applyOutboundStatus(db: Db, record: repo.OutboundRecord, params: Record<string, string>): Promise<{ final: TwilioCallStatus | null; unanswered: boolean }> {
  const status = params["CallStatus"];
  if (!isStatus(status)) return { final: null, unanswered: false };
  if (params["CallSid"] && !record.providerCallSid) await repo.setCallSid(db, record.id, params["CallSid"]);
  if (status === "queued" || status === "initiated" || status === "ringing" || status === "in-progress") {
    await repo.setProviderStatus(db, record.id, status);
    return { final: null, unanswered: false };
  }
  // Answered and streamed: the call session closes the record itself (a completed call).
  // Anything else never reached it, or reached it only for a moment before Twilio ended it.
  let unanswered = false;
  if (status !== "completed" || record.providerStatus !== "in-progress") {
    unanswered = await repo.endUnanswered(db, record.id, status, endedReasonOf(status, params, params["AnsweredBy"] ?? null));
  }
  await repo.setFinalStatus(db, record.id, status);
  return { final: status, unanswered };
}

/** TwiML for a machine: the message after the beep, then hang up (placeholders filled). */
export function voicemailTwiml(voicemail: Voicemail, variables: Record<string, string>): string | null {
  if (!voicemail || voicemail.action !== "leave_message" || !voicemail.message) return null;
  const response = new twilio.twiml.VoiceResponse();
  response.say(fillPlaceholders(voicemail.message, variables));
  response.hangup();
  return response.toString();
}

export const isMachine = (answeredBy: string | undefined) => Boolean(answeredBy && (answeredBy.startsWith("machine") || answeredBy === "fax"));
