/**
 * SRTP and SRTCP (RFC 3711) with the one crypto suite trunks and phones all offer by SDES
 * (RFC 4568): AES_CM_128_HMAC_SHA1_80 — AES-128 in counter mode, HMAC-SHA1 tags cut to 80 bits,
 * session keys derived once from a 30-byte master key and salt (key derivation rate 0, no MKI).
 * node:crypto does the AES and the HMAC; the packet index, rollover counter and replay window
 * are ours.
 */
import { createCipheriv, createHmac, timingSafeEqual } from "node:crypto";

export const SRTP_SUITE = "AES_CM_128_HMAC_SHA1_80";
/** Master key (16) then master salt (14), as `inline:` carries them base64-encoded. */
export const SRTP_MASTER_BYTES = 30;
const KEY_BYTES = 16;
const SALT_BYTES = 14;
const AUTH_KEY_BYTES = 20;
const TAG_BYTES = 10;
/** Packets older than this many behind the newest are refused as replays (§3.3.2 asks for at least 64). */
const REPLAY_WINDOW = 64n;
/** Senders (SSRCs) tracked per direction: a call has one or two; more is someone else's traffic. */
const MAX_SOURCES = 8;

/** The §4.3.1 labels: RTP's keys 0–2, RTCP's 3–5. */
const LABEL = { rtpKey: 0, rtpAuth: 1, rtpSalt: 2, rtcpKey: 3, rtcpAuth: 4, rtcpSalt: 5 } as const;

/** `length` bytes of AES-CM keystream from counter block `iv` (§4.1.1). */
export function aesCmKeystream(key: Buffer, iv: Buffer, length: number): Buffer {
  return createCipheriv("aes-128-ctr", key, iv).update(Buffer.alloc(length));
}

/**
 * A session key (§4.3.1) with key derivation rate 0: key_id = label || 48 zero bits, XORed into
 * the master salt's low 56 bits, shifted 16 bits left as the AES-CM counter under the master key.
 */
export function deriveSessionKey(masterKey: Buffer, masterSalt: Buffer, label: number, length: number): Buffer {
  const iv = Buffer.alloc(16);
  masterSalt.copy(iv, 0, 0, SALT_BYTES);
  iv[7]! ^= label;
  return aesCmKeystream(masterKey, iv, length);
}

/** The counter block of one packet (§4.1.1): salt · 2^16 ⊕ SSRC · 2^64 ⊕ index · 2^16. */
function packetIv(salt: Buffer, ssrc: number, index: number): Buffer {
  const iv = Buffer.alloc(16);
  salt.copy(iv, 0, 0, SALT_BYTES);
  iv.writeUInt32BE((iv.readUInt32BE(4) ^ ssrc) >>> 0, 4);
  // The 48-bit index sits in bytes 8–13: the high 16 bits, then the low 32.
  iv.writeUInt16BE(iv.readUInt16BE(8) ^ Math.floor(index / 2 ** 32), 8);
  iv.writeUInt32BE((iv.readUInt32BE(10) ^ index % 2 ** 32) >>> 0, 10);
  return iv;
}

interface Keys {
  key: Buffer;
  salt: Buffer;
  auth: Buffer;
}

function keysFor(master: Buffer, rtcp: boolean): Keys {
  const k = master.subarray(0, KEY_BYTES);
  const s = master.subarray(KEY_BYTES, SRTP_MASTER_BYTES);
  return {
    key: deriveSessionKey(k, s, rtcp ? LABEL.rtcpKey : LABEL.rtpKey, KEY_BYTES),
    salt: deriveSessionKey(k, s, rtcp ? LABEL.rtcpSalt : LABEL.rtpSalt, SALT_BYTES),
    auth: deriveSessionKey(k, s, rtcp ? LABEL.rtcpAuth : LABEL.rtpAuth, AUTH_KEY_BYTES),
  };
}

const tagOf = (auth: Buffer, ...parts: Buffer[]) => {
  const hmac = createHmac("sha1", auth);
  for (const part of parts) hmac.update(part);
  return hmac.digest().subarray(0, TAG_BYTES);
};

const roc4 = (roc: number) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(roc >>> 0);
  return out;
};

/** Where an RTP packet's payload starts: after the CSRCs and any header extension (RFC 3550 §5.3.1). */
function payloadOffset(packet: Buffer): number | null {
  if (packet.length < 12) return null;
  let offset = 12 + (packet[0]! & 0x0f) * 4;
  if (packet[0]! & 0x10) {
    if (packet.length < offset + 4) return null;
    offset += 4 + packet.readUInt16BE(offset + 2) * 4;
  }
  return offset <= packet.length ? offset : null;
}

/** A sliding window of the indexes seen below the highest (§3.3.2). */
class ReplayWindow {
  private highest = -1n;
  private seen = 0n;

  /** Whether `index` is new: neither seen nor older than the window. */
  fresh(index: number): boolean {
    const i = BigInt(index);
    if (i > this.highest) return true;
    const behind = this.highest - i;
    return behind < REPLAY_WINDOW && (this.seen & (1n << behind)) === 0n;
  }

  /** Marks `index` seen, once its packet has been authenticated. */
  mark(index: number): void {
    const i = BigInt(index);
    if (i > this.highest) {
      const shift = this.highest < 0n ? REPLAY_WINDOW : i - this.highest;
      this.seen = shift >= REPLAY_WINDOW ? 1n : ((this.seen << shift) | 1n) & ((1n << REPLAY_WINDOW) - 1n);
      this.highest = i;
    } else {
      this.seen |= 1n << (this.highest - i);
    }
  }
}

/** What a receiver knows of one sender: the highest sequence number authenticated, its rollover counter. */
interface Inbound {
  seq: number;
  roc: number;
  window: ReplayWindow;
}

/**
 * One direction's crypto context: `protect` what we send under our master key, `unprotect` what
 * the far end sends under theirs (each side of a call has its own SrtpContext per direction).
 */
export class SrtpContext {
  private readonly rtp: Keys;
  private readonly rtcp: Keys;
  /** Sender side: per SSRC, the last sequence number sent and its rollover counter. */
  private readonly sent = new Map<number, { seq: number; roc: number }>();
  private readonly received = new Map<number, Inbound>();
  private readonly rtcpReceived = new Map<number, ReplayWindow>();
  private rtcpIndex = 0;

  constructor(master: Buffer) {
    if (master.length !== SRTP_MASTER_BYTES) throw new Error(`An SRTP master key and salt are ${SRTP_MASTER_BYTES} bytes`);
    this.rtp = keysFor(master, false);
    this.rtcp = keysFor(master, true);
  }

  /** An RTP packet as SRTP: payload encrypted, the 80-bit tag appended. */
  protectRtp(packet: Buffer): Buffer {
    const offset = payloadOffset(packet);
    if (offset === null) throw new Error("Not an RTP packet");
    const ssrc = packet.readUInt32BE(8);
    const seq = packet.readUInt16BE(2);
    const state = this.sent.get(ssrc);
    // The sequence number wrapped: the rollover counter counts it (§3.3.1).
    const roc = state ? (seq < state.seq && state.seq - seq > 0x8000 ? state.roc + 1 : state.roc) : 0;
    if (!state || roc > state.roc || seq > state.seq) this.sent.set(ssrc, { seq, roc });
    const index = roc * 0x10000 + seq;
    const out = Buffer.allocUnsafe(packet.length + TAG_BYTES);
    packet.copy(out, 0, 0, offset);
    xorInto(out, offset, packet.subarray(offset), aesCmKeystream(this.rtp.key, packetIv(this.rtp.salt, ssrc, index), packet.length - offset));
    tagOf(this.rtp.auth, out.subarray(0, packet.length), roc4(roc)).copy(out, packet.length);
    return out;
  }

  /** The RTP packet inside an SRTP one, or null: too short, a tag that does not match, or a replay. */
  unprotectRtp(packet: Buffer): Buffer | null {
    if (packet.length < 12 + TAG_BYTES) return null;
    const body = packet.subarray(0, packet.length - TAG_BYTES);
    const offset = payloadOffset(body);
    if (offset === null) return null;
    const ssrc = body.readUInt32BE(8);
    const seq = body.readUInt16BE(2);
    const state = this.received.get(ssrc) ?? { seq, roc: 0, window: new ReplayWindow() };
    const roc = estimateRoc(state, seq);
    if (roc < 0) return null;
    const index = roc * 0x10000 + seq;
    if (!state.window.fresh(index)) return null;
    const tag = tagOf(this.rtp.auth, body, roc4(roc));
    if (!timingSafeEqual(tag, packet.subarray(body.length))) return null;
    // Authenticated: now it may move the receiver's idea of where the stream is.
    state.window.mark(index);
    if (index > state.roc * 0x10000 + state.seq) {
      state.roc = roc;
      state.seq = seq;
    }
    if (!this.received.has(ssrc)) {
      if (this.received.size >= MAX_SOURCES) this.received.delete(this.received.keys().next().value!);
      this.received.set(ssrc, state);
    }
    const out = Buffer.allocUnsafe(body.length);
    body.copy(out, 0, 0, offset);
    xorInto(out, offset, body.subarray(offset), aesCmKeystream(this.rtp.key, packetIv(this.rtp.salt, ssrc, index), body.length - offset));
    return out;
  }

  /** A compound RTCP packet as SRTCP (§3.4): all but its first 8 bytes encrypted, E flag and index, tag. */
  protectRtcp(packet: Buffer): Buffer {
    if (packet.length < 8) throw new Error("Not an RTCP packet");
    const ssrc = packet.readUInt32BE(4);
    const index = this.rtcpIndex;
    this.rtcpIndex = (this.rtcpIndex + 1) & 0x7fffffff;
    const out = Buffer.allocUnsafe(packet.length + 4 + TAG_BYTES);
    packet.copy(out, 0, 0, 8);
    xorInto(out, 8, packet.subarray(8), aesCmKeystream(this.rtcp.key, packetIv(this.rtcp.salt, ssrc, index), packet.length - 8));
    out.writeUInt32BE((0x80000000 | index) >>> 0, packet.length);
    tagOf(this.rtcp.auth, out.subarray(0, packet.length + 4)).copy(out, packet.length + 4);
    return out;
  }

  /** The RTCP packet inside an SRTCP one, or null (short, forged or replayed). */
  unprotectRtcp(packet: Buffer): Buffer | null {
    if (packet.length < 8 + 4 + TAG_BYTES) return null;
    const signed = packet.subarray(0, packet.length - TAG_BYTES);
    const tag = tagOf(this.rtcp.auth, signed);
    if (!timingSafeEqual(tag, packet.subarray(signed.length))) return null;
    const word = signed.readUInt32BE(signed.length - 4);
    const encrypted = (word & 0x80000000) !== 0;
    const index = word & 0x7fffffff;
    const ssrc = signed.readUInt32BE(4);
    const window = this.rtcpReceived.get(ssrc) ?? new ReplayWindow();
    if (!window.fresh(index)) return null;
    window.mark(index);
    if (!this.rtcpReceived.has(ssrc)) {
      if (this.rtcpReceived.size >= MAX_SOURCES) this.rtcpReceived.delete(this.rtcpReceived.keys().next().value!);
      this.rtcpReceived.set(ssrc, window);
    }
    const body = signed.subarray(0, signed.length - 4);
    if (!encrypted) return Buffer.from(body);
    const out = Buffer.allocUnsafe(body.length);
    body.copy(out, 0, 0, 8);
    xorInto(out, 8, body.subarray(8), aesCmKeystream(this.rtcp.key, packetIv(this.rtcp.salt, ssrc, index), body.length - 8));
    return out;
  }
}

/**
 * The rollover counter a packet was sent under, guessed from the highest sequence number seen
 * (§3.3.1, Appendix A): a number far below it has wrapped, one far above it is from before the
 * last wrap. -1 when that would be before the stream began.
 */
export function estimateRoc(state: { seq: number; roc: number }, seq: number): number {
  if (state.seq < 0x8000) return seq - state.seq > 0x8000 ? state.roc - 1 : state.roc;
  return state.seq - 0x8000 > seq ? state.roc + 1 : state.roc;
}

function xorInto(out: Buffer, at: number, data: Buffer, keystream: Buffer) {
  for (let i = 0; i < data.length; i += 1) out[at + i] = data[i]! ^ keystream[i]!;
}
