/**
 * Keypad digits sent as SIP INFO inside a call, as many PBXs and SBCs do instead of (or besides)
 * RFC 4733: `application/dtmf-relay` ("Signal=5\r\nDuration=160", Cisco's form, which Asterisk,
 * FreeSWITCH and most SBCs send) and `application/dtmf` (the digit alone). Signal 10 and 11 are
 * the `*` and `#` some equipment sends as event numbers.
 */
import { digitOf } from "./rtp-packet.ts";

export const INFO_DIGIT_TYPES = "application/dtmf-relay, application/dtmf";

/** The digit an INFO carries; null when it carries none we read; "not-dtmf" for another content type. */
export function infoDigit(contentType: string | undefined, body: string): string | null | "not-dtmf" {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  let signal: string | undefined;
  if (type === "application/dtmf-relay") signal = /^\s*signal\s*=\s*(\S+)\s*$/im.exec(body)?.[1];
  else if (type === "application/dtmf") signal = body.trim();
  else return "not-dtmf";
  if (!signal) return null;
  if (/^\d{1,2}$/.test(signal)) return digitOf(Number(signal));
  return /^[0-9*#A-D]$/i.test(signal) ? signal.toUpperCase() : null;
}
