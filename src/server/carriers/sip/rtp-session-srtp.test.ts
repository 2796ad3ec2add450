/**
 * A call's RTP once SRTP keys are agreed, as a far end holding the keys sees it: our frames arrive
 * encrypted and authenticated (readable with our key, not in clear), our sender reports arrive as
 * SRTCP, and only packets protected with the far end's key reach the call — plain RTP or a packet
 * under another key is dropped and does not move where our audio goes.
 */
import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { afterEach, expect, it } from "vitest";
import { decodeRtp, encodeRtp, readSenderReport } from "./rtp-packet.ts";
import { RtpSession } from "./rtp-session.ts";
import type { MediaPlan } from "./sdp.ts";
import { SrtpContext } from "./srtp.ts";

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

async function socket(): Promise<{ socket: Socket; port: number; received: Buffer[] }> {
  const s = createSocket("udp4");
  const received: Buffer[] = [];
  s.on("message", (data) => received.push(data));
  await new Promise<void>((resolve) => s.bind(0, "127.0.0.1", () => resolve()));
  opened.push({ close: () => s.close() });
  return { socket: s, port: s.address().port, received };
}

const until = async (check: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

const send = (from: Socket, data: Buffer, port: number) => new Promise<void>((resolve) => from.send(data, port, "127.0.0.1", () => resolve()));

it("sends SRTP and SRTCP under our key, and takes only what the far end protected with its own", async () => {
  const farKey = randomBytes(30);
  const rtp = await RtpSession.open({ host: "127.0.0.1", ports: { min: 35000, max: 35999 }, rtcpIntervalMs: 100 });
  opened.push(rtp);
  const heard: Buffer[] = [];
  rtp.on({ audio: (payload) => heard.push(Buffer.from(payload)) });
  const plan: MediaPlan = { codec: "PCMU", payloadType: 0, remoteAddress: "127.0.0.1", remotePort: 0, direction: "sendrecv", srtp: { remoteKey: farKey, tag: 1 } };

  // What we send goes to a plain socket standing in for the far end's RTP port.
  const farRtp = await socket();
  const tone = Buffer.alloc(160 * 5, 0x42);
  rtp.play(tone);
  rtp.configure({ ...plan, remotePort: farRtp.port });
  await until(() => farRtp.received.length >= 5);
  const theirs = new SrtpContext(rtp.srtpKey);
  const frames = farRtp.received.slice(0, 5).map((p) => theirs.unprotectRtp(p));
  expect(frames.every((f) => f !== null)).toBe(true);
  expect(Buffer.concat(frames.map((f) => decodeRtp(f!)!.payload))).toEqual(tone);
  expect(farRtp.received[0]!.subarray(12, 172)).not.toEqual(tone.subarray(0, 160));

  // Our sender report, as SRTCP, reaches the RTCP port next to the address we send to.
  const reportSink = await socket();
  rtp.configure({ ...plan, remotePort: reportSink.port - 1 });
  await until(() => reportSink.received.length > 0);
  const report = theirs.unprotectRtcp(reportSink.received[0]!);
  expect(report && readSenderReport(report)?.ssrc).toBe(rtp.ssrc);

  // The far end's audio: plain RTP and a packet under another key are dropped; its own key's packets are heard.
  const mine = new SrtpContext(farKey);
  const packet = (sequence: number, byte: number) => encodeRtp({ payloadType: 0, marker: false, sequence, timestamp: sequence * 160, ssrc: 99, payload: Buffer.alloc(160, byte) });
  const stranger = await socket();
  await send(stranger.socket, packet(1, 0x11), rtp.port);
  await send(stranger.socket, new SrtpContext(randomBytes(30)).protectRtp(packet(2, 0x22)), rtp.port);
  for (let seq = 3; seq < 10; seq += 1) await send(farRtp.socket, mine.protectRtp(packet(seq, 0x33)), rtp.port);
  await until(() => heard.length >= 4);
  expect(heard.every((h) => h.equals(Buffer.alloc(160, 0x33)))).toBe(true);
  // Our audio went on to the far end, not to the stranger that sent first.
  const before = farRtp.received.length;
  rtp.play(tone);
  await until(() => farRtp.received.length > before + 2);
  expect(stranger.received).toHaveLength(0);
});
