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
  /**
   * Whether outbound calls are dialled: `refused` while Twilio cannot reach PUBLIC_URL (the person
   * called would hear Twilio's application error); `warned` when the problem stands but
   * TWILIO_API_BASE points at a Twilio-compatible endpoint of its own, which may reach it.
   */
  dialling: z.enum(["ok", "warned", "refused"]),
  /** What the Call dialog and campaign pages say about dialling; null when nothing stands in the way. */
  dialling_note: z.string().nullable(),
});
export type Reachability = z.infer<typeof reachabilitySchema>;

const REACHABILITY_FIX = "Set PUBLIC_URL to a public https:// address (a reverse proxy with a certificate, or a tunnel such as cloudflared or ngrok) and restart.";

export const REACHABILITY_TEXTS = {
  title: "Twilio cannot reach this server",
  fix: REACHABILITY_FIX,
  ok: "Nothing in PUBLIC_URL stops Twilio from reaching this server. Twilio will call:",
  noCredentialsTitle: "Add your Twilio credentials first",
  noCredentials: "Numbers are bought through your own Twilio account. Save its Account SID and Auth Token in Settings, then come back here.",
  dialRefusedTitle: "Calls are not dialled from this server",
  dialRefused: (problem: string) => `No call is dialled while Twilio cannot reach this server, since the person called would hear Twilio's application error. ${problem} ${REACHABILITY_FIX}`,
  dialWarnedTitle: "Calls go to a Twilio-compatible endpoint",
  dialWarned: (apiBase: string) => `TWILIO_API_BASE is ${apiBase}, not Twilio, so calls are dialled through it although Twilio itself could not reach PUBLIC_URL. Check that it can.`,
} as const;

/** The error code of a dial refused because Twilio cannot reach this server. */
export const TWILIO_UNREACHABLE = "twilio_unreachable";
/** Where TWILIO_API_BASE points by default: Twilio itself. */
export const DEFAULT_TWILIO_API_BASE = "https://api.twilio.com";

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

/**
 * The addresses Twilio is given for a call, from PUBLIC_URL (as telephony/twiml.ts builds them),
 * and whether calls are dialled at all (`twilioApiBase`: where the Twilio REST client points).
 */
export function reachabilityOf(publicUrl: string, twilioApiBase: string = DEFAULT_TWILIO_API_BASE): Reachability {
  const base = publicUrl.replace(/\/+$/, "");
  const problem = publicUrlProblem(publicUrl);
  const apiBase = twilioApiBase.replace(/\/+$/, "");
  const dialling = problem === null ? "ok" : apiBase === DEFAULT_TWILIO_API_BASE ? "refused" : "warned";
  return {
    public_url: base,
    voice_url: `${base}/telephony/twilio/voice`,
    stream_url: `${base.replace(/^http/, "ws")}/telephony/twilio/media`,
    problem,
    dialling,
    dialling_note: problem === null ? null : dialling === "refused" ? REACHABILITY_TEXTS.dialRefused(problem) : REACHABILITY_TEXTS.dialWarned(apiBase),
  };
}
