import { z } from "zod";

/**
 * Whether Twilio can reach this server at PUBLIC_URL (GET /api/telephony/reachability): Twilio
 * calls the voice webhook over the public internet and opens the media stream over wss://, so a
 * local or private address, or plain http://, can never take a call — numbers can still be bought.
 */
export const reachabilitySchema = z.object({
  public_url: z.string(),
  /** Where Twilio sends an incoming call (POST). */
  voice_url: z.string(),
  /** Where Twilio opens the call's audio stream. */
  stream_url: z.string(),
  /** null when nothing stands in the way that this server can see; otherwise why Twilio cannot reach it. */
  problem: z.string().nullable(),
});
export type Reachability = z.infer<typeof reachabilitySchema>;

export const REACHABILITY_TEXTS = {
  title: "Twilio cannot reach this server",
  fix: "Set PUBLIC_URL to a public https:// address (a reverse proxy with a certificate, or a tunnel such as cloudflared or ngrok) and restart.",
  ok: "Nothing in PUBLIC_URL stops Twilio from reaching this server. Twilio will call:",
  noCredentialsTitle: "Add your Twilio credentials first",
  noCredentials: "Numbers are bought through your own Twilio account. Save its Account SID and Auth Token in Settings, then come back here.",
} as const;

const PRIVATE_V4 = [/^127\./, /^10\./, /^192\.168\./, /^172\.(1[6-9]|2\d|3[01])\./, /^169\.254\./, /^0\./];

/** Why Twilio cannot reach `publicUrl`, or null when the address itself is fine. */
export function publicUrlProblem(publicUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(publicUrl);
  } catch {
    return `PUBLIC_URL (${publicUrl}) is not an address.`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, "").toLowerCase();
  const local =
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    host === "::1" ||
    host.startsWith("fc") ||
    host.startsWith("fd") ||
    host.startsWith("fe80:") ||
    PRIVATE_V4.some((re) => re.test(host)) ||
    !host.includes(".");
  if (local) return `PUBLIC_URL is ${url.origin}, an address only this machine or its network can reach: Twilio, on the internet, cannot deliver calls to it.`;
  if (url.protocol !== "https:") return `PUBLIC_URL is ${url.origin}: Twilio's call audio needs a secure (https:// and wss://) address.`;
  return null;
}

/** The addresses Twilio is given for a call, from PUBLIC_URL (as telephony/twiml.ts builds them). */
export function reachabilityOf(publicUrl: string): Reachability {
  const base = publicUrl.replace(/\/+$/, "");
  return {
    public_url: base,
    voice_url: `${base}/telephony/twilio/voice`,
    stream_url: `${base.replace(/^http/, "ws")}/telephony/twilio/media`,
    problem: publicUrlProblem(publicUrl),
  };
}
