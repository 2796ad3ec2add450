/**
 * X-Twilio-Signature checks (protocols §3.2) with the official `twilio` package. The URL is
 * the one Twilio called, rebuilt from PUBLIC_URL (behind a proxy or tunnel the address the
 * server sees differs), plus the path and query as received.
 */
import twilio from "twilio";

export function publicUrlOf(publicUrl: string, pathAndQuery: string): string {
  return `${publicUrl}${pathAndQuery}`;
}

/** PUBLIC_URL's http(s) turned into ws(s), plus `path`. */
export function publicWsUrlOf(publicUrl: string, path: string): string {
  return `${publicUrl.replace(/^http/, "ws")}${path}`;
}

export function validTwilioSignature(authToken: string, signature: unknown, url: string, params: Record<string, string>): boolean {
  if (typeof signature !== "string" || signature === "") return false;
  return twilio.validateRequest(authToken, signature, url, params);
}
