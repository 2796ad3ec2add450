/**
 * SDP offer/answer (RFC 3264) for one audio stream: G.711 µ-law or A-law at 20 ms, with
 * telephone-event (RFC 4733) for keypad digits. Parsing and writing are sdp-transform's.
 */
import { parse, write, type MediaDescription, type SessionDescription } from "sdp-transform";

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
}

export type OfferResult = { ok: true; plan: MediaPlan; answer: (local: LocalMedia) => string } | { ok: false; reason: string };

export interface LocalMedia {
  address: string;
  port: number;
  sessionId: number;
  version: number;
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

/**
 * Answers an offer: the first audio stream with a codec we speak, in the offerer's order of
 * preference (§6.1); every other stream is refused with port 0, as §6 requires.
 */
export function answerOffer(offerText: string): OfferResult {
  const offer = safeParse(offerText);
  if (!offer) return { ok: false, reason: "unreadable SDP" };
  const index = offer.media.findIndex((m) => m.type === "audio" && m.port !== 0 && /^RTP\/AVP$/i.test(m.protocol) && codecsOf(m).length > 0);
  if (index < 0) return { ok: false, reason: "no audio stream with PCMU or PCMA over RTP/AVP" };
  const media = offer.media[index]!;
  const chosen = codecsOf(media)[0]!;
  const address = connectionOf(offer, media);
  if (!address) return { ok: false, reason: "no connection address" };
  const offered = (media.direction ?? offer.direction ?? "sendrecv") as Direction;
  // A connection address of 0.0.0.0 is the older way to put a call on hold (RFC 3264 §8.4).
  const direction = address === "0.0.0.0" ? "inactive" : REVERSED[offered];
  const telephoneEvent = telephoneEventOf(media);
  const plan: MediaPlan = { codec: chosen.codec, payloadType: chosen.pt, telephoneEvent, remoteAddress: address, remotePort: media.port, direction };
  return {
    ok: true,
    plan,
    answer: (local) =>
      write({
        ...sessionOf(local),
        media: offer.media.map((m, i) =>
          i === index ? audioMedia(local, [{ codec: chosen.codec, pt: chosen.pt }], telephoneEvent, direction) : { type: m.type, port: 0, protocol: m.protocol, payloads: String(m.payloads ?? "0").split(/\s+/)[0], rtp: [], fmtp: [] },
        ),
      }),
  };
}

/** Our offer (outbound calls, or an INVITE that came without one): PCMU, PCMA, telephone-event 101. */
export function makeOffer(local: LocalMedia, direction: Direction = "sendrecv"): string {
  return write({ ...sessionOf(local), media: [audioMedia(local, [{ codec: "PCMU", pt: 0 }, { codec: "PCMA", pt: 8 }], 101, direction)] });
}

/** Reads the answer to our offer. */
export function readAnswer(answerText: string): MediaPlan | null {
  const answer = safeParse(answerText);
  const media = answer?.media.find((m) => m.type === "audio" && m.port !== 0);
  if (!answer || !media) return null;
  const chosen = codecsOf(media)[0];
  const address = connectionOf(answer, media);
  if (!chosen || !address) return null;
  const theirs = (media.direction ?? answer.direction ?? "sendrecv") as Direction;
  return { codec: chosen.codec, payloadType: chosen.pt, telephoneEvent: telephoneEventOf(media), remoteAddress: address, remotePort: media.port, direction: REVERSED[theirs] };
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

function audioMedia(local: LocalMedia, codecs: { codec: Codec; pt: number }[], telephoneEvent: number | undefined, direction: Direction): MediaDescription {
  const rtp: MediaDescription["rtp"] = codecs.map(({ codec, pt }) => ({ payload: pt, codec, rate: 8000 }));
  const fmtp: MediaDescription["fmtp"] = [];
  if (telephoneEvent !== undefined) {
    rtp.push({ payload: telephoneEvent, codec: "telephone-event", rate: 8000 });
    fmtp.push({ payload: telephoneEvent, config: "0-16" });
  }
  return { type: "audio", port: local.port, protocol: "RTP/AVP", payloads: rtp.map((r) => r.payload).join(" "), rtp, fmtp, ptime: PTIME_MS, direction };
}

export const payloadTypeOf = (codec: Codec) => CODEC_PT[codec];
