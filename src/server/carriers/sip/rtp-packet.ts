/** RTP and RTCP packets (RFC 3550 §5.1, §6.4.1) and telephone-event payloads (RFC 4733 §2.3). */

export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

/** The fixed header, with no CSRC list or extension (what we send). */
export const RTP_HEADER_BYTES = 12;

/** Writes the header of `p` into the first 12 bytes of `out`. */
export function writeRtpHeader(out: Buffer, p: Omit<RtpPacket, "payload">): void {
  out[0] = 0x80;
  out[1] = (p.marker ? 0x80 : 0) | (p.payloadType & 0x7f);
  out.writeUInt16BE(p.sequence & 0xffff, 2);
  out.writeUInt32BE(p.timestamp >>> 0, 4);
  out.writeUInt32BE(p.ssrc >>> 0, 8);
}

export function encodeRtp(p: RtpPacket): Buffer {
  const out = Buffer.allocUnsafe(RTP_HEADER_BYTES + p.payload.length);
  writeRtpHeader(out, p);
  p.payload.copy(out, RTP_HEADER_BYTES);
  return out;
}

/** An RTP packet, or null for anything that is not one (wrong version, lengths that lie). */
export function decodeRtp(data: Buffer): RtpPacket | null {
  if (data.length < 12 || data[0]! >> 6 !== 2) return null;
  const payloadType = data[1]! & 0x7f;
  // 72–76 are RTCP's packet types seen through the same port (RFC 5761 §4).
  if (payloadType >= 72 && payloadType <= 76) return null;
  let offset = 12 + (data[0]! & 0x0f) * 4;
  if (data[0]! & 0x10) {
    if (data.length < offset + 4) return null;
    offset += 4 + data.readUInt16BE(offset + 2) * 4;
  }
  let end = data.length;
  if (data[0]! & 0x20) end -= data[data.length - 1]!;
  if (offset > end) return null;
  return { payloadType, marker: (data[1]! & 0x80) !== 0, sequence: data.readUInt16BE(2), timestamp: data.readUInt32BE(4), ssrc: data.readUInt32BE(8), payload: data.subarray(offset, end) };
}

export interface TelephoneEvent {
  event: number;
  end: boolean;
  volume: number;
  duration: number;
}

export function decodeTelephoneEvent(payload: Buffer): TelephoneEvent | null {
  if (payload.length < 4) return null;
  return { event: payload[0]!, end: (payload[1]! & 0x80) !== 0, volume: payload[1]! & 0x3f, duration: payload.readUInt16BE(2) };
}

export function encodeTelephoneEvent(e: TelephoneEvent): Buffer {
  const out = Buffer.alloc(4);
  out[0] = e.event;
  out[1] = (e.end ? 0x80 : 0) | (e.volume & 0x3f);
  out.writeUInt16BE(e.duration & 0xffff, 2);
  return out;
}

const KEYS = "0123456789*#ABCD";
/** Events 0–15 are the keypad (RFC 4733 §3.2); the rest (flash, tones) are not digits. */
export const digitOf = (event: number) => (event < KEYS.length ? KEYS[event]! : null);
export const eventOf = (digit: string) => {
  const i = KEYS.indexOf(digit.toUpperCase());
  return i < 0 ? null : i;
};

// NTP's epoch is 1900; 2,208,988,800 s before Unix's.
const NTP_OFFSET_S = 2_208_988_800;

/** A compound RTCP packet: a sender report (no report blocks) and the SDES CNAME that §6.1 requires with it. */
export function encodeSenderReport(r: { ssrc: number; wallMs: number; rtpTimestamp: number; packets: number; octets: number; cname: string }): Buffer {
  const sr = Buffer.alloc(28);
  sr[0] = 0x80;
  sr[1] = 200;
  sr.writeUInt16BE(6, 2);
  sr.writeUInt32BE(r.ssrc >>> 0, 4);
  const seconds = Math.floor(r.wallMs / 1000);
  sr.writeUInt32BE((seconds + NTP_OFFSET_S) >>> 0, 8);
  sr.writeUInt32BE(Math.floor(((r.wallMs % 1000) / 1000) * 2 ** 32) >>> 0, 12);
  sr.writeUInt32BE(r.rtpTimestamp >>> 0, 16);
  sr.writeUInt32BE(r.packets >>> 0, 20);
  sr.writeUInt32BE(r.octets >>> 0, 24);
  const cname = Buffer.from(r.cname, "utf8").subarray(0, 255);
  // SSRC, CNAME item (type, length, text), a terminating zero, padded to 32 bits.
  const itemLength = 4 + 2 + cname.length + 1;
  const padded = Math.ceil(itemLength / 4) * 4;
  const sdes = Buffer.alloc(4 + padded);
  sdes[0] = 0x81;
  sdes[1] = 202;
  sdes.writeUInt16BE(padded / 4, 2);
  sdes.writeUInt32BE(r.ssrc >>> 0, 4);
  sdes[8] = 1;
  sdes[9] = cname.length;
  cname.copy(sdes, 10);
  return Buffer.concat([sr, sdes]);
}

export interface SenderReport {
  ssrc: number;
  rtpTimestamp: number;
  packets: number;
  octets: number;
}

/** The sender report in a compound RTCP packet, if it has one. */
export function readSenderReport(data: Buffer): SenderReport | null {
  let offset = 0;
  while (offset + 4 <= data.length) {
    if (data[offset]! >> 6 !== 2) return null;
    const length = (data.readUInt16BE(offset + 2) + 1) * 4;
    if (data[offset + 1] === 200 && offset + 28 <= data.length) {
      return { ssrc: data.readUInt32BE(offset + 4), rtpTimestamp: data.readUInt32BE(offset + 16), packets: data.readUInt32BE(offset + 20), octets: data.readUInt32BE(offset + 24) };
    }
    offset += length;
  }
  return null;
}
