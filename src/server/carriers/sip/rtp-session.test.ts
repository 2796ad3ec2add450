/**
 * One call's RTP as the far end's socket sees it: frames on a 20 ms clock with the right
 * sequence numbers and timestamps, audio put back in order, keypad digits, sender reports, and
 * audio following the far end to the address its packets come from.
 */
import { createSocket, type Socket } from "node:dgram";
import { performance } from "node:perf_hooks";
import { afterEach, describe, expect, it } from "vitest";
import { decodeRtp, encodeRtp, encodeTelephoneEvent, readSenderReport, type RtpPacket } from "./rtp-packet.ts";
import { RtpSession } from "./rtp-session.ts";
import type { MediaPlan } from "./sdp.ts";

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

async function farEnd(port = 0): Promise<{ socket: Socket; port: number; packets: { packet: RtpPacket; at: number; raw: Buffer }[] }> {
  const socket = createSocket("udp4");
  const packets: { packet: RtpPacket; at: number; raw: Buffer }[] = [];
  socket.on("message", (raw) => {
    const packet = decodeRtp(raw);
    if (packet) packets.push({ packet, at: performance.now(), raw });
  });
  await new Promise<void>((resolve) => socket.bind(port, "127.0.0.1", () => resolve()));
  opened.push({ close: () => socket.close() });
  return { socket, port: socket.address().port, packets };
}

async function session(options: { rtcpIntervalMs?: number; inactivityMs?: number } = {}) {
  const rtp = await RtpSession.open({ host: "127.0.0.1", ports: { min: 32000, max: 33999 }, ...options });
  opened.push(rtp);
  return rtp;
}

const plan = (remotePort: number, extra: Partial<MediaPlan> = {}): MediaPlan => ({ codec: "PCMU", payloadType: 0, telephoneEvent: 101, remoteAddress: "127.0.0.1", remotePort, direction: "sendrecv", ...extra });

/** A packet of the far end's. */
const packet = (sequence: number, payload: Buffer, payloadType = 0, timestamp = sequence * 160) => encodeRtp({ payloadType, marker: false, sequence, timestamp, ssrc: 42, payload });

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe("what we send", () => {
  it("sends queued audio in 160-byte frames, one per 20 ms, never early, with consecutive sequence numbers and timestamps", async () => {
    const far = await farEnd();
    const rtp = await session();
    const tone = Buffer.alloc(160 * 10);
    for (let i = 0; i < tone.length; i += 1) tone[i] = i % 256;
    rtp.play(tone);
    const started = performance.now();
    rtp.configure(plan(far.port));
    await until(() => far.packets.length >= 40);
    const packets = far.packets.slice(0, 40);
    expect(new Set(packets.map((p) => p.packet.ssrc)).size).toBe(1);
    packets.forEach(({ packet, at }, i) => {
      expect(packet.payloadType).toBe(0);
      expect(packet.payload.length).toBe(160);
      expect(packet.sequence).toBe((packets[0]!.packet.sequence + i) & 0xffff);
      // Frame n of the clock carries timestamp first + 160·n and is never sent before start + 20·n ms.
      const frame = ((packet.timestamp - packets[0]!.packet.timestamp) >>> 0) / 160;
      expect(Number.isInteger(frame)).toBe(true);
      expect(at - started).toBeGreaterThanOrEqual(frame * 20 - 2);
      if (i === 0) return expect(packet.marker).toBe(true);
      // Frames follow one another; only after a stall of the event loop longer than a short
      // catch-up burst are frames skipped, and then the marker says the stream jumped.
      const step = frame - ((packets[i - 1]!.packet.timestamp - packets[0]!.packet.timestamp) >>> 0) / 160;
      expect(step === 1 ? !packet.marker : packet.marker && step > 1).toBe(true);
    });
    // The queued audio first, in order; then silence (µ-law 0xFF) keeps the stream going.
    expect(Buffer.concat(packets.slice(0, 10).map((p) => p.packet.payload)).equals(tone)).toBe(true);
    expect(packets[10]!.packet.payload.every((b) => b === 0xff)).toBe(true);
  });

  it("drops queued audio on clear (barge-in), and sends nothing while the far end holds the call", async () => {
    const far = await farEnd();
    const rtp = await session();
    rtp.play(Buffer.alloc(160 * 100, 0x11));
    rtp.configure(plan(far.port));
    await until(() => far.packets.length >= 2);
    rtp.clear();
    await until(() => far.packets.length >= 6);
    expect(far.packets.at(-1)!.packet.payload.every((b) => b === 0xff)).toBe(true);
    rtp.configure(plan(far.port, { direction: "recvonly" }));
    await new Promise((r) => setTimeout(r, 60));
    const held = far.packets.length;
    await new Promise((r) => setTimeout(r, 200));
    expect(far.packets.length).toBe(held);
  });

  it("sends RTCP sender reports counting the packets sent", async () => {
    const far = await farEnd();
    const rtcp = createSocket("udp4");
    opened.push({ close: () => rtcp.close() });
    const reports: Buffer[] = [];
    rtcp.on("message", (m) => reports.push(m));
    await new Promise<void>((resolve, reject) => (rtcp.once("error", reject), rtcp.bind(far.port + 1, "127.0.0.1", () => resolve())));
    const rtp = await session({ rtcpIntervalMs: 100 });
    rtp.configure(plan(far.port));
    await until(() => reports.length >= 2);
    const report = readSenderReport(reports.at(-1)!)!;
    expect(report.ssrc).toBe(rtp.ssrc);
    expect(report.packets).toBeGreaterThan(0);
    expect(report.octets).toBe(report.packets * 160);
  });
});

describe("what we receive", () => {

  it("puts reordered audio back in order and drops duplicates and late packets", async () => {
    const far = await farEnd();
    const rtp = await session();
    const heard: number[] = [];
    rtp.on({ audio: (_payload, p) => heard.push(p!.sequence) });
    rtp.configure(plan(far.port));
    for (const seq of [100, 102, 101, 101, 103, 99, 104, 105]) far.socket.send(packet(seq, Buffer.alloc(160, seq)), rtp.port, "127.0.0.1");
    await until(() => heard.length >= 6);
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toEqual([100, 101, 102, 103, 104, 105]);
  });

  it("gives up a lost packet once later ones pile up", async () => {
    const far = await farEnd();
    const rtp = await session();
    const heard: number[] = [];
    rtp.on({ audio: (_payload, p) => heard.push(p!.sequence) });
    rtp.configure(plan(far.port));
    for (const seq of [1, 2, 4, 5, 6, 7]) far.socket.send(packet(seq, Buffer.alloc(160)), rtp.port, "127.0.0.1");
    await until(() => heard.length >= 4);
    expect(heard.slice(0, 4)).toEqual([1, 2, 4, 5]);
  });

  it("turns RFC 4733 telephone-events into one digit per key press", async () => {
    const far = await farEnd();
    const rtp = await session();
    const digits: string[] = [];
    rtp.on({ digit: (d) => digits.push(d) });
    rtp.configure(plan(far.port));
    let seq = 10;
    for (const [event, ts] of [[5, 8000], [11, 16000]] as const) {
      for (const [end, duration] of [[false, 160], [false, 320], [true, 480], [true, 480], [true, 480]] as const) {
        far.socket.send(packet(seq++, encodeTelephoneEvent({ event, end, volume: 10, duration }), 101, ts), rtp.port, "127.0.0.1");
      }
    }
    await until(() => digits.length >= 2);
    await new Promise((r) => setTimeout(r, 50));
    expect(digits).toEqual(["5", "#"]);
  });

  it("sends to where the far end's packets come from (symmetric RTP behind NAT)", async () => {
    const advertised = await farEnd(); // what the SDP said: a private address a NAT rewrote
    const real = await farEnd(); // where the phone's packets really come from
    const rtp = await session();
    rtp.configure(plan(advertised.port));
    await until(() => advertised.packets.length >= 1);
    real.socket.send(packet(1, Buffer.alloc(160)), rtp.port, "127.0.0.1");
    await until(() => real.packets.length >= 3);
    const before = advertised.packets.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(advertised.packets.length).toBeLessThanOrEqual(before + 1);
  });
});

describe("a far end gone silent", () => {
  it("is told once when the far end stops sending, and not while it sends", async () => {
    const far = await farEnd();
    const rtp = await session({ inactivityMs: 300 });
    let silent = 0;
    rtp.configure(plan(far.port));
    rtp.onSilent(() => (silent += 1));
    // 600 ms of audio, a packet every 20 ms: never 300 ms without one.
    for (let seq = 1; seq <= 30; seq += 1) {
      far.socket.send(packet(seq, Buffer.alloc(160)), rtp.port, "127.0.0.1");
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(silent).toBe(0);
    await until(() => silent > 0, 2000);
    await new Promise((r) => setTimeout(r, 400));
    expect(silent).toBe(1);
  });

  it("waits on a caller who put the call on hold (we only send), and counts again once the call resumes", async () => {
    const far = await farEnd();
    const rtp = await session({ inactivityMs: 200 });
    let silent = 0;
    rtp.configure(plan(far.port, { direction: "sendonly" }));
    rtp.onSilent(() => (silent += 1));
    await new Promise((r) => setTimeout(r, 500));
    expect(silent).toBe(0);
    rtp.configure(plan(far.port));
    await until(() => silent > 0, 2000);
  });
});
