/**
 * SDP offer/answer (RFC 3264) for one audio stream: G.711 µ-law or A-law at 20 ms, with
 * telephone-event (RFC 4733) for keypad digits, and SRTP keys by SDES (RFC 4568: RTP/SAVP with
 * `a=crypto`) on calls whose signalling is TLS. Parsing and writing are sdp-transform's.
 */
import { parse, write, type MediaDescription, type SessionDescription } from "sdp-transform";
import { SRTP_MASTER_BYTES, SRTP_SUITE } from "./srtp.ts";

export type Codec = "PCMU" | "PCMA";
export type Direction = "sendrecv" | "sendonly" | "recvonly" | "inactive";

const STATIC_PT: Record<number, Codec> = { 0: "PCMU", 8: "PCMA" };
const CODEC_PT: Record<Codec, number> = { PCMU: 0, PCMA: 8 };
export const PTIME_MS = 20;

/** What was agreed for the call's audio. */
export interface MediaPlan {
  codec: Codec;
  payloadType: number;
  /** The far end's payload type for telephone-event, when it offered or accepted one. */
  telephoneEvent?: number;
  /** Where the far end says to send RTP (symmetric RTP may move it to where packets come from). */
  remoteAddress: string;
  remotePort: number;
  /** Our direction, from our side's view. */
  direction: Direction;
  /** SRTP agreed (RTP/SAVP): the far end's master key and salt, and the tag of the crypto line chosen. */
  srtp?: { remoteKey: Buffer; tag: number };
}

/**
 * What a call may do with SRTP, by its signalling (ADR 075): over UDP/TCP its keys would travel in
 * clear, so RTP/SAVP is refused; over TLS it is taken when offered, or insisted on.
 */
export type SrtpPolicy = "refuse" | "optional" | "required";

export type OfferResult = { ok: true; plan: MediaPlan; answer: (local: LocalMedia) => string } | { ok: false; reason: string };

export interface LocalMedia {
  address: string;
  port: number;
  sessionId: number;
  version: number;
  /** Our SRTP master key and salt, on calls that may carry SRTP (over TLS): offered, or given in an answer. */
  srtpKey?: Buffer;
}

const REVERSED: Record<Direction, Direction> = { sendrecv: "sendrecv", sendonly: "recvonly", recvonly: "sendonly", inactive: "inactive" };

function safeParse(text: string): SessionDescription | null {
  try {
    const sdp = parse(text);
    return sdp.version === 0 && Array.isArray(sdp.media) ? sdp : null;
  } catch {
    return null;
  }
}

function codecsOf(media: MediaDescription): { codec: Codec; pt: number }[] {
  const out: { codec: Codec; pt: number }[] = [];
  for (const token of String(media.payloads ?? "").split(/\s+/)) {
    const pt = Number(token);
    if (!Number.isInteger(pt)) continue;
    const rtp = media.rtp.find((r) => r.payload === pt);
    const name = rtp ? rtp.codec.toUpperCase() : STATIC_PT[pt];
    if ((name === "PCMU" || name === "PCMA") && (!rtp || rtp.rate === 8000)) out.push({ codec: name, pt });
  }
  return out;
}

const telephoneEventOf = (media: MediaDescription) =>
  media.rtp.find((r) => r.codec.toLowerCase() === "telephone-event" && r.rate === 8000)?.payload;

function connectionOf(sdp: SessionDescription, media: MediaDescription): string | null {
  const ip = media.connection?.ip ?? sdp.connection?.ip;
  return ip ? ip.split("/")[0]! : null;
}

const isSavp = (m: MediaDescription) => /^RTP\/SAVP$/i.test(m.protocol);

/**
 * The first crypto line of a suite we speak with one inline key of the right length and no MKI
 * (RFC 4568 §9.1, §6.1). A lifetime is accepted: we never re-key, and even 2^20 packets are hours of audio.
 */
function cryptoOf(media: MediaDescription): { tag: number; key: Buffer } | null {
  for (const line of media.crypto ?? []) {
    if (line.suite.toUpperCase() !== SRTP_SUITE || line.sessionConfig) continue;
    // inline:<key||salt>[|lifetime][|MKI:length] — several keys or an MKI we cannot follow.
    const m = /^inline:([A-Za-z0-9+/=]+)(\|[^|]+)?$/.exec(line.config.trim());
    if (!m || (m[2] && !/^\|(2\^\d+|\d+)$/.test(m[2]))) continue;
    const key = Buffer.from(m[1]!, "base64");
    if (key.length === SRTP_MASTER_BYTES && Number.isInteger(line.id)) return { tag: line.id, key };
  }
  return null;
}

/** Whether a stream's transport suits the policy: RTP/AVP unless SRTP is required, RTP/SAVP with a key we can use when allowed. */
function usable(media: MediaDescription, policy: SrtpPolicy): boolean {
  if (media.type !== "audio" || media.port === 0 || codecsOf(media).length === 0) return false;
  if (/^RTP\/AVP$/i.test(media.protocol)) return policy !== "required";
  return isSavp(media) && policy !== "refuse" && cryptoOf(media) !== null;
}

function refusal(offer: SessionDescription, policy: SrtpPolicy): string {
  if (policy === "refuse" && offer.media.some(isSavp)) return "SRTP (RTP/SAVP) is taken only over TLS: call sips: or use transport=tls";
  if (policy === "required") return `this server requires SRTP (RTP/SAVP with ${SRTP_SUITE}) on calls over TLS`;
  return "no audio stream with PCMU or PCMA over RTP/AVP";
}

/**
 * Answers an offer: the first audio stream with a codec we speak, in the offerer's order of
 * preference (§6.1); every other stream is refused with port 0, as §6 requires. An RTP/SAVP
 * stream is answered with our own key (RFC 4568 §7.1.2) when `policy` allows SRTP.
 */
export function answerOffer(offerText: string, policy: SrtpPolicy = "refuse"): OfferResult {
  const offer = safeParse(offerText);
  if (!offer) return { ok: false, reason: "unreadable SDP" };
  const index = offer.media.findIndex((m) => usable(m, policy));
  if (index < 0) return { ok: false, reason: refusal(offer, policy) };
  const media = offer.media[index]!;
  const crypto = isSavp(media) ? cryptoOf(media) : null;
  const chosen = codecsOf(media)[0]!;
  const address = connectionOf(offer, media);
  if (!address) return { ok: false, reason: "no connection address" };
  const offered = (media.direction ?? offer.direction ?? "sendrecv") as Direction;
  // A connection address of 0.0.0.0 is the older way to put a call on hold (RFC 3264 §8.4).
  const direction = address === "0.0.0.0" ? "inactive" : REVERSED[offered];
  const telephoneEvent = telephoneEventOf(media);
  const plan: MediaPlan = { codec: chosen.codec, payloadType: chosen.pt, telephoneEvent, remoteAddress: address, remotePort: media.port, direction };
  if (crypto) plan.srtp = { remoteKey: crypto.key, tag: crypto.tag };
  return {
    ok: true,
    plan,
    answer: (local) =>
      write({
        ...sessionOf(local),
        media: offer.media.map((m, i) =>
          i === index
            ? audioMedia(local, [{ codec: chosen.codec, pt: chosen.pt }], telephoneEvent, direction, crypto ? { tag: crypto.tag, key: local.srtpKey } : undefined)
            : { type: m.type, port: 0, protocol: m.protocol, payloads: String(m.payloads ?? "0").split(/\s+/)[0], rtp: [], fmtp: [] },
        ),
      }),
  };
}

/**
 * Our offer (outbound calls, or an INVITE that came without one): PCMU, PCMA, telephone-event 101;
 * RTP/SAVP with our key when `local` has one (the call's signalling is TLS).
 */
export function makeOffer(local: LocalMedia, direction: Direction = "sendrecv"): string {
  const crypto = local.srtpKey ? { tag: 1, key: local.srtpKey } : undefined;
  return write({ ...sessionOf(local), media: [audioMedia(local, [{ codec: "PCMU", pt: 0 }, { codec: "PCMA", pt: 8 }], 101, direction, crypto)] });
}

/** Reads the answer to our offer; null when unusable, or when it drops the SRTP we offered (`srtp`) or adds SRTP we did not. */
export function readAnswer(answerText: string, srtp = false): MediaPlan | null {
  const answer = safeParse(answerText);
  const media = answer?.media.find((m) => m.type === "audio" && m.port !== 0);
  if (!answer || !media) return null;
  const chosen = codecsOf(media)[0];
  const address = connectionOf(answer, media);
  if (!chosen || !address || isSavp(media) !== srtp) return null;
  const crypto = srtp ? cryptoOf(media) : null;
  if (srtp && !crypto) return null;
  const theirs = (media.direction ?? answer.direction ?? "sendrecv") as Direction;
  const plan: MediaPlan = { codec: chosen.codec, payloadType: chosen.pt, telephoneEvent: telephoneEventOf(media), remoteAddress: address, remotePort: media.port, direction: REVERSED[theirs] };
  if (crypto) plan.srtp = { remoteKey: crypto.key, tag: crypto.tag };
  return plan;
}

function sessionOf(local: LocalMedia): Omit<SessionDescription, "media"> {
  return {
    version: 0,
    origin: { username: "-", sessionId: local.sessionId, sessionVersion: local.version, netType: "IN", ipVer: 4, address: local.address },
    name: "-",
    connection: { version: 4, ip: local.address },
    timing: { start: 0, stop: 0 },
  };
}

function audioMedia(local: LocalMedia, codecs: { codec: Codec; pt: number }[], telephoneEvent: number | undefined, direction: Direction, crypto?: { tag: number; key: Buffer | undefined }): MediaDescription {
  const rtp: MediaDescription["rtp"] = codecs.map(({ codec, pt }) => ({ payload: pt, codec, rate: 8000 }));
  const fmtp: MediaDescription["fmtp"] = [];
  if (telephoneEvent !== undefined) {
    rtp.push({ payload: telephoneEvent, codec: "telephone-event", rate: 8000 });
    fmtp.push({ payload: telephoneEvent, config: "0-16" });
  }
  const media: MediaDescription = { type: "audio", port: local.port, protocol: "RTP/AVP", payloads: rtp.map((r) => r.payload).join(" "), rtp, fmtp, ptime: PTIME_MS, direction };
  if (!crypto) return media;
  if (!crypto.key) throw new Error("An SRTP stream needs our key");
  return { ...media, protocol: "RTP/SAVP", crypto: [{ id: crypto.tag, suite: SRTP_SUITE, config: `inline:${crypto.key.toString("base64")}` }] };
}

export const payloadTypeOf = (codec: Codec) => CODEC_PT[codec];
