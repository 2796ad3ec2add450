/**
 * SRTP keys in SDP (RFC 4568 security descriptions) as offer/answer decides them: taken only when
 * the call's signalling is TLS, answered with our own key under the offerer's tag, insisted on when
 * SRTP is required, and an answer that drops (or adds) SRTP to our offer is not accepted.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { answerOffer, makeOffer, readAnswer } from "./sdp.ts";

const sdp = (...lines: string[]) => ["v=0", "o=- 1 1 IN IP4 192.0.2.10", "s=-", "c=IN IP4 192.0.2.10", "t=0 0", ...lines, ""].join("\r\n");
const theirKey = randomBytes(30);
const ourKey = randomBytes(30);
const local = { address: "198.51.100.1", port: 40000, sessionId: 7, version: 1, srtpKey: ourKey };
const savp = sdp(
  "m=audio 5004 RTP/SAVP 0 101",
  "a=rtpmap:101 telephone-event/8000",
  `a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:${randomBytes(30).toString("base64")}`,
  `a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:${randomBytes(30).toString("base64")}|2^20|1:4`,
  `a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:${theirKey.toString("base64")}|2^31`,
);

describe("answering an offer", () => {
  it("over TLS takes RTP/SAVP with the first crypto line it can use, and answers with its own key under that tag", () => {
    const result = answerOffer(savp, "optional");
    if (!result.ok) throw new Error(result.reason);
    expect(result.plan.srtp?.tag).toBe(3);
    expect(result.plan.srtp?.remoteKey.equals(theirKey)).toBe(true);
    const answer = result.answer(local);
    expect(answer).toMatch(/m=audio 40000 RTP\/SAVP 0 101/);
    expect(answer).toContain(`a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:${ourKey.toString("base64")}`);
    expect(answer.match(/a=crypto/g)).toHaveLength(1);
  });

  it("over TLS answers a plain RTP/AVP offer with plain RTP, unless SRTP is required", () => {
    const plain = sdp("m=audio 5004 RTP/AVP 0");
    const optional = answerOffer(plain, "optional");
    if (!optional.ok) throw new Error(optional.reason);
    expect(optional.plan.srtp).toBeUndefined();
    expect(optional.answer(local)).not.toMatch(/SAVP|crypto/);
    const required = answerOffer(plain, "required");
    expect(required.ok || required.reason).toMatch(/requires SRTP/);
  });

  it("over UDP or TCP refuses RTP/SAVP (its keys would travel in clear), but takes an RTP/AVP stream offered beside it", () => {
    const refused = answerOffer(savp, "refuse");
    expect(refused.ok || refused.reason).toMatch(/only over TLS/);
    const both = answerOffer(sdp("m=audio 5004 RTP/SAVP 0", `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${theirKey.toString("base64")}`, "m=audio 5006 RTP/AVP 0"), "refuse");
    if (!both.ok) throw new Error(both.reason);
    expect(both.plan).toMatchObject({ remotePort: 5006 });
    expect(both.plan.srtp).toBeUndefined();
  });

  it("refuses RTP/SAVP whose keys it cannot use: another suite only, a key of the wrong length, an MKI", () => {
    for (const crypto of [
      `a=crypto:1 AES_256_CM_HMAC_SHA1_80 inline:${randomBytes(46).toString("base64")}`,
      `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${randomBytes(16).toString("base64")}`,
      `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${theirKey.toString("base64")}|2^20|1:4`,
    ]) {
      expect(answerOffer(sdp("m=audio 5004 RTP/SAVP 0", crypto), "optional").ok, crypto).toBe(false);
    }
  });
});

describe("our offer and its answer", () => {
  it("offers RTP/SAVP with our key, and takes an answer only when it keeps SRTP with a key", () => {
    const offer = makeOffer(local);
    expect(offer).toMatch(/m=audio 40000 RTP\/SAVP 0 8 101/);
    expect(offer).toContain(`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${ourKey.toString("base64")}`);
    const keyed = sdp("m=audio 6000 RTP/SAVP 0", `a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${theirKey.toString("base64")}`);
    expect(readAnswer(keyed, true)?.srtp?.remoteKey.equals(theirKey)).toBe(true);
    expect(readAnswer(sdp("m=audio 6000 RTP/SAVP 0"), true)).toBeNull();
    expect(readAnswer(sdp("m=audio 6000 RTP/AVP 0"), true)).toBeNull();
    expect(readAnswer(keyed, false)).toBeNull();
    expect(makeOffer({ ...local, srtpKey: undefined })).toMatch(/m=audio 40000 RTP\/AVP 0 8 101/);
  });
});
