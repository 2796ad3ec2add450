/**
 * Why a SIP call ended, in the few words a call record needs: the final answer to our INVITE
 * (RFC 3261 §21) mapped to what the person placing the call would say happened.
 */
export type SipEndReason =
  /** The far end sent BYE. */
  | "remote-hangup"
  /** We sent BYE (or gave up an unanswered call we placed: CANCEL). */
  | "local-hangup"
  /** The caller gave up before we answered (CANCEL). */
  | "cancelled"
  | "busy"
  | "no-answer"
  | "rejected"
  | "unreachable"
  /** Our 2xx was never acknowledged, or the far end stopped answering in the dialog. */
  | "timeout";

export function reasonForStatus(status: number): SipEndReason {
  if (status === 486 || status === 600) return "busy";
  if (status === 408 || status === 480 || status === 487) return "no-answer";
  // No such number, or a network that could not route the call: the call could not reach anyone.
  if (status === 404 || status === 410 || status === 484 || status === 604 || (status >= 300 && status < 400) || (status >= 500 && status < 600)) return "unreachable";
  return "rejected";
}
