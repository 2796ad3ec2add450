/**
 * Digest answers against the published examples (RFC 7616 §3.9.1: the same MD5 and SHA-256
 * computation SIP uses, RFC 8760), SDP offer/answer decisions, SIP text parsing, and A-law.
 */
import { describe, expect, it } from "vitest";
import { mulawToPcm16, pcm16ToMulaw } from "../../voice/audio.ts";
import { parseNameAddr, parseUri, parseVia } from "./address.ts";
import { DigestChallenger, answerChallenge, digestResponse } from "./digest.ts";
import { alawToMulaw, alawToPcm16, mulawToAlaw, pcm16ToAlaw } from "./g711.ts";
import { headerValue, headerValues, parseMessage, serialize } from "./message.ts";
import { answerOffer, makeOffer, readAnswer } from "./sdp.ts";

describe("digest", () => {
  const example = {
    username: "Mufasa",
    password: "Circle of Life",
    realm: "http-auth@example.org",
    method: "GET",
    uri: "/dir/index.html",
    nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
    qop: "auth" as const,
    nc: "00000001",
    cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ",
  };

  it("computes the RFC's MD5 and SHA-256 responses", () => {
    expect(digestResponse({ ...example, algorithm: "MD5" })).toBe("8ca523f5e9506fed4657c9700eebdbec");
    expect(digestResponse({ ...example, algorithm: "SHA-256" })).toBe("753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1");
  });

  it("accepts our own SHA-256 answer to its challenge, and refuses a wrong password and a stranger's nonce", () => {
    const challenger = new DigestChallenger("sip.test", ["SHA-256", "MD5"]);
    const [sha] = challenger.challenges();
    expect(sha).toMatch(/algorithm=SHA-256/);
    const lookup = (u: string) => (u === "trunk" ? "pw" : undefined);
    const good = answerChallenge(sha!, { username: "trunk", password: "pw" }, "INVITE", "sip:a@b")!;
    expect(challenger.verify(good, "INVITE", lookup)).toBe("ok");
    expect(challenger.verify(answerChallenge(sha!, { username: "trunk", password: "nope" }, "INVITE", "sip:a@b")!, "INVITE", lookup)).toBe("bad");
    const other = new DigestChallenger("sip.test").challenges()[0]!;
    expect(challenger.verify(answerChallenge(other, { username: "trunk", password: "pw" }, "INVITE", "sip:a@b")!, "INVITE", lookup)).toBe("bad");
    expect(new DigestChallenger("sip.test", ["MD5"], -1).verify(undefined, "INVITE", lookup)).toBe("missing");
  });

  it("asks for a fresh nonce when an old one is used (stale)", () => {
    const challenger = new DigestChallenger("sip.test", ["MD5"], -1);
    const answer = answerChallenge(challenger.challenges()[0]!, { username: "trunk", password: "pw" }, "INVITE", "sip:a@b")!;
    expect(challenger.verify(answer, "INVITE", () => "pw")).toBe("stale");
  });
});

describe("SDP offer/answer", () => {
  const offer = (m: string, extra = "") => `v=0\r\no=- 1 1 IN IP4 192.0.2.10\r\ns=-\r\nc=IN IP4 192.0.2.10\r\nt=0 0\r\n${m}\r\n${extra}`;
  const local = { address: "198.51.100.1", port: 40000, sessionId: 7, version: 1 };

  it("takes the offerer's first codec it speaks, keeps telephone-event, and refuses other streams with port 0", () => {
    const result = answerOffer(offer("m=audio 5004 RTP/AVP 18 8 0 101", "a=rtpmap:18 G729/8000\r\na=rtpmap:101 telephone-event/8000\r\nm=video 5006 RTP/AVP 96\r\na=rtpmap:96 VP8/90000\r\n"));
    if (!result.ok) throw new Error(result.reason);
    expect(result.plan).toEqual({ codec: "PCMA", payloadType: 8, telephoneEvent: 101, remoteAddress: "192.0.2.10", remotePort: 5004, direction: "sendrecv" });
    const answer = result.answer(local);
    expect(answer).toMatch(/m=audio 40000 RTP\/AVP 8 101/);
    expect(answer).toMatch(/m=video 0 /);
    expect(answer).toMatch(/a=ptime:20/);
    expect(answer).toMatch(/c=IN IP4 198\.51\.100\.1/);
  });

  it("answers hold with the direction reversed, and an old-style 0.0.0.0 hold with inactive", () => {
    const held = answerOffer(offer("m=audio 5004 RTP/AVP 0", "a=sendonly\r\n"));
    expect(held.ok && held.plan.direction).toBe("recvonly");
    const old = answerOffer(offer("m=audio 5004 RTP/AVP 0").replace(/c=IN IP4 192.0.2.10/, "c=IN IP4 0.0.0.0"));
    expect(old.ok && old.plan.direction).toBe("inactive");
  });

  it("refuses offers without G.711 over RTP/AVP, and text that is not SDP", () => {
    expect(answerOffer(offer("m=audio 5004 RTP/AVP 18", "a=rtpmap:18 G729/8000\r\n")).ok).toBe(false);
    expect(answerOffer(offer("m=audio 5004 RTP/SAVP 0")).ok).toBe(false);
    expect(answerOffer("hello").ok).toBe(false);
  });

  it("reads the answer to its own offer", () => {
    const ours = makeOffer(local);
    expect(ours).toMatch(/m=audio 40000 RTP\/AVP 0 8 101/);
    expect(readAnswer(offer("m=audio 6000 RTP/AVP 0 101", "a=rtpmap:101 telephone-event/8000\r\n"))).toMatchObject({ codec: "PCMU", remotePort: 6000, telephoneEvent: 101 });
  });
});

describe("SIP text", () => {
  const text = [
    "INVITE sip:+15551234567@trunk.example.com;user=phone SIP/2.0",
    "v: SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK776;rport, SIP/2.0/TCP [2001:db8::1]:5070;branch=z9hG4bK1",
    "f: \"A, B\" <sip:a@example.com>;tag=1",
    "t: <sip:b@example.com>",
    "i: abc@host",
    "CSeq: 4711 INVITE",
    "Subject: folded",
    "  onto two lines",
    "l: 4",
    "",
    "body",
  ].join("\r\n");

  it("reads compact forms, folded lines, comma-joined Vias and names with commas", () => {
    const result = parseMessage(Buffer.from(text));
    if (!result.ok) throw new Error(result.error);
    const m = result.message;
    expect(headerValue(m.headers, "subject")).toBe("folded onto two lines");
    const vias = headerValues(m.headers, "via").map((v) => parseVia(v));
    expect(vias.map((v) => [v?.transport, v?.host, v?.port])).toEqual([["UDP", "192.0.2.1", 5060], ["TCP", "2001:db8::1", 5070]]);
    expect(vias[0]?.params.rport).toBe("");
    expect(parseNameAddr(headerValue(m.headers, "from")!)).toEqual({ display: "A, B", uri: "sip:a@example.com", params: { tag: "1" } });
    expect(parseUri(m.kind === "request" ? m.uri : "")).toMatchObject({ user: "+15551234567", host: "trunk.example.com", params: { user: "phone" } });
    expect(m.body.toString()).toBe("body");
    const again = parseMessage(serialize(m));
    expect(again.ok && headerValue(again.message.headers, "call-id")).toBe("abc@host");
  });
});

describe("A-law", () => {
  it("encodes silence as 0xD5 and carries a tone through both laws within G.711's error", () => {
    expect(pcm16ToAlaw(Int16Array.of(0))[0]).toBe(0xd5);
    const tone = Int16Array.from({ length: 160 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000)));
    const back = alawToPcm16(pcm16ToAlaw(tone));
    tone.forEach((s, i) => expect(Math.abs(back[i]! - s)).toBeLessThanOrEqual(Math.max(16, Math.abs(s) / 16)));
    const viaAlaw = mulawToPcm16(alawToMulaw(mulawToAlaw(pcm16ToMulaw(tone))));
    tone.forEach((s, i) => expect(Math.abs(viaAlaw[i]! - s)).toBeLessThanOrEqual(Math.max(64, Math.abs(s) / 8)));
  });
});
