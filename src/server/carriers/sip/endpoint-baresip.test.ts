/**
 * A call from baresip, a real SIP phone: we answer and play a 1 kHz tone, baresip sends its
 * 440 Hz sine and presses keys. What a caller would notice: the call is answered, each side
 * hears the other's tone, the digits arrive, and a hang-up on either side ends the call on both.
 */
import { afterEach, beforeEach, expect, it } from "vitest";
import { BARESIP_TONE_HZ, startBaresip, type Baresip } from "../../../../tests/fakes/baresip.ts";
import { toneShare } from "../../../../tests/tone-share.ts";
import { mulawToPcm16, pcm16ToMulaw } from "../../voice/audio.ts";
import type { SipCall } from "./call.ts";
import { SipEndpoint } from "./endpoint.ts";
import type { SipEndReason } from "./end-reasons.ts";

const OUR_TONE_HZ = 1000;

let endpoint: SipEndpoint;
let phone: Baresip;
let call: Promise<SipCall>;
const heard: Buffer[] = [];
const digits: string[] = [];

beforeEach(async () => {
  heard.length = 0;
  digits.length = 0;
  endpoint = await SipEndpoint.start({ host: "127.0.0.1", port: 0, rtp: { ports: { min: 38000, max: 39999 } } });
  call = new Promise((resolve) =>
    endpoint.on("call", async (c) => {
      c.ring();
      resolve(c);
      await c.answer();
      const second = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * OUR_TONE_HZ * i) / 8000)));
      c.rtp!.play(Buffer.from(pcm16ToMulaw(second)));
      c.rtp!.on({ audio: (payload) => heard.push(payload), digit: (d) => digits.push(d) });
    }),
  );
  phone = await startBaresip();
});

afterEach(async () => {
  await phone.stop();
  await endpoint.close();
});

const ended = (c: SipCall) => new Promise<SipEndReason>((resolve) => (c.endReason ? resolve(c.endReason) : c.once("ended", (r) => resolve(r))));

it("answers baresip's call; each side hears the other's tone, digits arrive, and baresip's hang-up ends our call", async () => {
  phone.command("dial", `sip:agent@127.0.0.1:${endpoint.port}`);
  await phone.event("CALL_ESTABLISHED");
  const ours = await call;
  await new Promise((r) => setTimeout(r, 300));
  phone.command("sndcode", "5");
  await new Promise((r) => setTimeout(r, 250));
  phone.command("sndcode", "#");
  await new Promise((r) => setTimeout(r, 1000));
  phone.command("hangup");
  expect(await ended(ours)).toBe("remote-hangup");

  expect(digits).toEqual(["5", "#"]);
  // baresip's audio came in 20 ms frames (160 samples; its telephone-events are digits, not
  // audio), and is its 440 Hz sine.
  expect(heard.length).toBeGreaterThan(40);
  expect(heard.every((frame) => frame.length === 160)).toBe(true);
  const theirs = mulawToPcm16(Buffer.concat(heard.slice(10)));
  expect(toneShare(theirs, 8000, BARESIP_TONE_HZ)).toBeGreaterThan(0.8);

  // What baresip decoded from our RTP: our 1 kHz tone for the second we played it.
  const decoded = (await phone.stop())!;
  const tone = decoded.samples.subarray(Math.round(decoded.sampleRate * 0.2), Math.round(decoded.sampleRate * 0.8));
  expect(toneShare(tone, decoded.sampleRate, OUR_TONE_HZ)).toBeGreaterThan(0.8);
});

it("ends baresip's call when we hang up", async () => {
  phone.command("dial", `sip:agent@127.0.0.1:${endpoint.port}`);
  await phone.event("CALL_ESTABLISHED");
  (await call).hangup();
  const closed = await phone.event("CALL_CLOSED");
  expect(closed.peeruri).toBe(`sip:agent@127.0.0.1:${endpoint.port}`);
});
