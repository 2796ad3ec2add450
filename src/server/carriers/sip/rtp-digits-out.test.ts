/**
 * Keys we send (a bridged call passing on what one side pressed), as the far end's socket sees
 * them: RFC 4733 events in place of audio frames — the first packet marked, every packet of a
 * key with the key's one timestamp and a growing duration, the end packet three times, sequence
 * numbers running on with the audio's — and a far end that agreed no telephone-event gets none.
 */
import { createSocket } from "node:dgram";
import { afterEach, expect, it } from "vitest";
import { decodeRtp, decodeTelephoneEvent, type RtpPacket } from "./rtp-packet.ts";
import { RtpSession } from "./rtp-session.ts";
import type { MediaPlan } from "./sdp.ts";

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const o of opened.splice(0)) o.close();
});

async function farEnd() {
  const socket = createSocket("udp4");
  const packets: RtpPacket[] = [];
  socket.on("message", (raw) => {
    const packet = decodeRtp(raw);
    if (packet) packets.push(packet);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  opened.push({ close: () => socket.close() });
  return { port: socket.address().port, packets };
}

async function session(remotePort: number, extra: Partial<MediaPlan> = {}) {
  const rtp = await RtpSession.open({ host: "127.0.0.1", ports: { min: 34000, max: 34999 } });
  opened.push(rtp);
  rtp.configure({ codec: "PCMU", payloadType: 0, telephoneEvent: 101, remoteAddress: "127.0.0.1", remotePort, direction: "sendrecv", ...extra });
  return rtp;
}

const until = async (check: () => boolean, ms = 3000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 10));
  }
};

it("sends a key as telephone-events in the audio's place: marked start, one timestamp, growing duration, the end three times", async () => {
  const far = await farEnd();
  const rtp = await session(far.port);
  await until(() => far.packets.length >= 3);
  expect(rtp.sendDigit("7")).toBe(true);
  expect(rtp.sendDigit("#")).toBe(true);
  const events = () => far.packets.filter((p) => p.payloadType === 101);
  await until(() => events().length >= 16);
  await until(() => far.packets.at(-1)!.payloadType === 0);

  const keys = [events().slice(0, 8), events().slice(8, 16)];
  for (const [i, key] of keys.entries()) {
    const decoded = key.map((p) => decodeTelephoneEvent(p.payload)!);
    expect(decoded.every((e) => e.event === [7, 11][i])).toBe(true);
    expect(new Set(key.map((p) => p.timestamp)).size).toBe(1);
    expect(key.map((p) => p.marker)).toEqual([true, false, false, false, false, false, false, false]);
    expect(decoded.map((e) => e.duration)).toEqual([160, 320, 480, 640, 800, 800, 800, 800]);
    expect(decoded.map((e) => e.end)).toEqual([false, false, false, false, false, true, true, true]);
  }
  // The second key starts after the first one's time.
  expect(keys[1]![0]!.timestamp).toBeGreaterThan(keys[0]![0]!.timestamp);
  // Sequence numbers run on through audio and events alike.
  const sequences = far.packets.map((p) => p.sequence);
  sequences.slice(1).forEach((s, i) => expect(s).toBe((sequences[i]! + 1) & 0xffff));
  // The audio after the keys starts a new talkspurt.
  const firstAudioAfter = far.packets.findIndex((p, i) => i > far.packets.indexOf(keys[1]!.at(-1)!) && p.payloadType === 0);
  expect(far.packets[firstAudioAfter]!.marker).toBe(true);
});

it("sends no key to a far end that agreed no telephone-event", async () => {
  const far = await farEnd();
  const rtp = await session(far.port, { telephoneEvent: undefined });
  expect(rtp.sendDigit("5")).toBe(false);
  expect(rtp.sendDigit("x")).toBe(false);
  await until(() => far.packets.length >= 10);
  expect(far.packets.every((p) => p.payloadType === 0)).toBe(true);
});
