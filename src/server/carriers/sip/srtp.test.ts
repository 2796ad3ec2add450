/**
 * SRTP (RFC 3711) against the RFC's own test vectors — Appendix B.2 (AES-CM keystream) and B.3
 * (key derivation) — then what a far end would notice: packets protected by one side read back by
 * the other across a sequence wrap, and forged, replayed or too-old packets dropped.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeRtp, encodeSenderReport } from "./rtp-packet.ts";
import { aesCmKeystream, deriveSessionKey, estimateRoc, SrtpContext } from "./srtp.ts";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

describe("RFC 3711 Appendix B", () => {
  it("B.2: the AES-CM keystream of the session key and salt, at its start and at the end of the 65 282-block segment", () => {
    const key = hex("2B7E151628AED2A6ABF7158809CF4F3C");
    const keystream = aesCmKeystream(key, hex("F0F1F2F3F4F5F6F7F8F9FAFBFCFD0000"), 65_282 * 16);
    expect(keystream.subarray(0, 48).toString("hex").toUpperCase()).toBe("E03EAD0935C95E80E166B16DD92B4EB4" + "D23513162B02D0F72A43A2FE4A5F97AB" + "41E95B3BB0A2E8DD477901E4FCA894C0");
    expect(keystream.subarray(0xfeff * 16, 0xff02 * 16).toString("hex").toUpperCase()).toBe(
      "EC8CDF7398607CB0F2D21675EA9EA1E4" + "362B7C3C6773516318A077D7FC5073AE" + "6A2CC3787889374FBEB4C81B17BA6C44",
    );
  });

  it("B.3: the cipher key, cipher salt and authentication key derived from the master key and salt", () => {
    const masterKey = hex("E1F97A0D3E018BE0D64FA32C06DE4139");
    const masterSalt = hex("0EC675AD498AFEEBB6960B3AABE6");
    expect(deriveSessionKey(masterKey, masterSalt, 0, 16).toString("hex").toUpperCase()).toBe("C61E7A93744F39EE10734AFE3FF7A087");
    expect(deriveSessionKey(masterKey, masterSalt, 2, 14).toString("hex").toUpperCase()).toBe("30CBBC08863D8C85D49DB34A9AE1");
    // The RFC lists 94 bytes of the authentication keystream; HMAC-SHA1 takes its first 20.
    expect(deriveSessionKey(masterKey, masterSalt, 1, 94).toString("hex").toUpperCase()).toBe(
      "CEBE321F6FF7716B6FD4AB49AF256A15" +
        "6D38BAA48F0A0ACF3C34E2359E6CDBCE" +
        "E049646C43D9327AD175578EF7227098" +
        "6371C10C9A369AC2F94A8C5FBCDDDC25" +
        "6D6E919A48B610EF17C2041E47403576" +
        "6B68642C59BBFC2F34DB60DBDFB2",
    );
  });
});

const rtp = (sequence: number, payload = randomBytes(160), ssrc = 0x1234abcd) => encodeRtp({ payloadType: 0, marker: false, sequence, timestamp: sequence * 160, ssrc, payload });

describe("SRTP between two ends of a call", () => {
  it("encrypts the payload, keeps the header readable, and the other end reads it back", () => {
    const master = randomBytes(30);
    const packet = rtp(1000);
    const protectedPacket = new SrtpContext(master).protectRtp(packet);
    expect(protectedPacket.length).toBe(packet.length + 10);
    expect(protectedPacket.subarray(0, 12)).toEqual(packet.subarray(0, 12));
    expect(protectedPacket.subarray(12, packet.length)).not.toEqual(packet.subarray(12));
    expect(new SrtpContext(master).unprotectRtp(protectedPacket)).toEqual(packet);
  });

  it("follows the stream across the sequence number's wrap (the rollover counter) and through reordering", () => {
    const master = randomBytes(30);
    const sender = new SrtpContext(master);
    const receiver = new SrtpContext(master);
    const sequences = [65_530, 65_531, 65_533, 65_532, 65_534, 65_535, 0, 2, 1, 3, 4];
    const packets = new Map<number, Buffer>();
    for (const seq of [...sequences].sort((a, b) => ((a + 10) & 0xffff) - ((b + 10) & 0xffff))) packets.set(seq, rtp(seq));
    const sent = new Map([...packets].map(([seq, p]) => [seq, sender.protectRtp(p)]));
    for (const seq of sequences) expect(receiver.unprotectRtp(sent.get(seq)!), `packet ${seq}`).toEqual(packets.get(seq));
  });

  it("drops a packet whose tag does not match, one replayed, and one older than the replay window", () => {
    const master = randomBytes(30);
    const sender = new SrtpContext(master);
    const receiver = new SrtpContext(master);
    const first = sender.protectRtp(rtp(10));
    const forged = Buffer.from(first);
    forged[20]! ^= 1;
    expect(receiver.unprotectRtp(forged)).toBeNull();
    expect(new SrtpContext(randomBytes(30)).unprotectRtp(first)).toBeNull();
    expect(receiver.unprotectRtp(first)).not.toBeNull();
    expect(receiver.unprotectRtp(first)).toBeNull();
    const old = sender.protectRtp(rtp(11));
    for (let seq = 12; seq < 100; seq += 1) expect(receiver.unprotectRtp(sender.protectRtp(rtp(seq)))).not.toBeNull();
    expect(receiver.unprotectRtp(old)).toBeNull();
  });

  it("guesses the rollover counter as Appendix A does", () => {
    expect(estimateRoc({ seq: 65_535, roc: 3 }, 2)).toBe(4);
    expect(estimateRoc({ seq: 2, roc: 4 }, 65_535)).toBe(3);
    expect(estimateRoc({ seq: 40_000, roc: 1 }, 40_100)).toBe(1);
    expect(estimateRoc({ seq: 5, roc: 0 }, 65_000)).toBe(-1);
  });

  it("protects RTCP as SRTCP: the sender report reads back once, a replay or a forgery does not", () => {
    const master = randomBytes(30);
    const sender = new SrtpContext(master);
    const receiver = new SrtpContext(master);
    const report = encodeSenderReport({ ssrc: 77, wallMs: Date.now(), rtpTimestamp: 1, packets: 2, octets: 320, cname: "x@switchboard" });
    const first = sender.protectRtcp(report);
    expect(first.length).toBe(report.length + 14);
    expect(first.readUInt32BE(report.length) >>> 31).toBe(1); // the E flag: encrypted
    expect(receiver.unprotectRtcp(first)).toEqual(report);
    expect(receiver.unprotectRtcp(first)).toBeNull();
    const second = sender.protectRtcp(report);
    const forged = Buffer.from(second);
    forged[10]! ^= 0x40;
    expect(receiver.unprotectRtcp(forged)).toBeNull();
    expect(receiver.unprotectRtcp(second)).toEqual(report);
  });
});
