/**
 * Session timers (RFC 4028): a call's dialog is refreshed (re-INVITE or UPDATE) by one side, the
 * refresher, every half interval; the other side ends the call with BYE when no refresh came
 * before the interval, less a margin, ran out. So a call whose far end died (a crashed PBX, an
 * instance gone) does not stay up forever on either side.
 */
import type { Headers, SipRequest, SipResponse } from "./message.ts";
import { headerValue, headerValues } from "./message.ts";

/** RFC 4028 §5: the least interval anyone may ask for, and the one we ask for on calls we place. */
export const MIN_SE_S = 90;
export const OUR_SESSION_EXPIRES_S = 1800;

export interface SessionExpires {
  seconds: number;
  refresher?: "uac" | "uas";
}

/** `Session-Expires: 1800;refresher=uac` (its compact form `x` is expanded by the parser). */
export function parseSessionExpires(message: SipRequest | SipResponse): SessionExpires | null {
  const value = headerValue(message.headers, "session-expires");
  const m = value ? /^\s*(\d{1,9})\s*(?:;(.*))?$/.exec(value) : null;
  if (!m) return null;
  const refresher = /(?:^|;)\s*refresher\s*=\s*(uac|uas)\s*(?:;|$)/i.exec(m[2] ?? "")?.[1]?.toLowerCase() as SessionExpires["refresher"];
  return { seconds: Number(m[1]), ...(refresher ? { refresher } : {}) };
}

/** Whether a message says its sender supports (or requires) the `timer` extension. */
export const supportsTimer = (message: SipRequest | SipResponse) =>
  [...headerValues(message.headers, "supported"), ...headerValues(message.headers, "require")].some((t) => t.toLowerCase() === "timer");

/** What a 2xx to a request carrying `asked` says: the interval, who refreshes, and Require: timer when the sender knows it. */
export function sessionHeaders(seconds: number, refresher: "uac" | "uas", senderSupports: boolean): Headers {
  const headers: Headers = [["session-expires", `${seconds};refresher=${refresher}`]];
  if (senderSupports) headers.push(["require", "timer"]);
  return headers;
}

/** One call's timer: refresh at half the interval when we refresh, else end when the interval (less a margin) runs out. */
export class SessionTimer {
  private timer: NodeJS.Timeout | undefined;
  seconds = 0;
  weRefresh = false;

  constructor(private readonly hooks: { refresh(): void; expired(): void }) {}

  arm(seconds: number, weRefresh: boolean): void {
    this.seconds = seconds;
    this.weRefresh = weRefresh;
    clearTimeout(this.timer);
    // §10: the refresher at half; the other side waits the interval less min(32 s, a third of it).
    const ms = weRefresh ? (seconds * 1000) / 2 : seconds * 1000 - Math.min(32_000, (seconds * 1000) / 3);
    this.timer = setTimeout(() => (weRefresh ? this.hooks.refresh() : this.hooks.expired()), ms);
    this.timer.unref();
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
