/**
 * A call's RTP on the media thread: the far end (on a thread of its own here, as a phone is
 * elsewhere) keeps getting a frame every 20 ms while the server's main event loop is stuck, and
 * what it says reaches the call through the thread.
 */
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { afterEach, expect, it } from "vitest";
import { until } from "../../../../tests/until.ts";
import { openRtpOnThread } from "./rtp-thread.ts";
import type { RtpStream } from "./rtp-session.ts";

const opened: RtpStream[] = [];
const threads: Worker[] = [];
afterEach(async () => {
  for (const rtp of opened.splice(0)) rtp.close();
  await Promise.all(threads.splice(0).map((t) => t.terminate()));
});

/** A phone's socket on its own thread: it notes when each of our packets arrives, and sends a packet of 160 bytes of `0x55` to `port` when told. */
async function farEnd(): Promise<{ port: number; arrivals(): Promise<number[]>; speak(port: number): void }> {
  const thread = new Worker(
    `const { parentPort } = require("node:worker_threads");
     const socket = require("node:dgram").createSocket("udp4");
     const arrivals = [];
     socket.on("message", () => arrivals.push(performance.timeOrigin + performance.now()));
     socket.bind(0, "127.0.0.1", () => parentPort.postMessage(socket.address().port));
     parentPort.on("message", (m) => {
       if (m === "arrivals") return parentPort.postMessage(arrivals);
       const packet = Buffer.alloc(172, 0x55);
       packet[0] = 0x80; packet[1] = 0; packet.writeUInt16BE(7, 2); packet.writeUInt32BE(1120, 4); packet.writeUInt32BE(42, 8);
       socket.send(packet, m, "127.0.0.1");
     });`,
    { eval: true },
  );
  threads.push(thread);
  const port = await new Promise<number>((resolve) => thread.once("message", resolve));
  return {
    port,
    arrivals: () => new Promise((resolve) => (thread.once("message", resolve), thread.postMessage("arrivals"))),
    speak: (to) => thread.postMessage(to),
  };
}

it("keeps sending a frame every 20 ms while the main event loop is stuck, and hands on what the far end says", async () => {
  const far = await farEnd();
  const rtp = await openRtpOnThread({ host: "127.0.0.1", ports: { min: 36000, max: 36999 } });
  opened.push(rtp);
  const heard: Buffer[] = [];
  rtp.on({ audio: (payload) => heard.push(payload) });
  rtp.configure({ codec: "PCMU", payloadType: 0, remoteAddress: "127.0.0.1", remotePort: far.port, direction: "sendrecv" });
  await until("our first packets", async () => (await far.arrivals()).length, (n) => n >= 5);

  // The main thread busy for half a second, as a long statement or a collection would hold it.
  const stuckFrom = performance.timeOrigin + performance.now();
  while (performance.now() - (stuckFrom - performance.timeOrigin) < 500);
  const stuckTo = performance.timeOrigin + performance.now();
  await new Promise((r) => setTimeout(r, 100));

  const during = (await far.arrivals()).filter((at) => at >= stuckFrom - 20 && at <= stuckTo + 20);
  // About 25 frames while stuck, none missing for long (a stuck clock would leave one 500 ms gap).
  expect(during.length).toBeGreaterThanOrEqual(15);
  const gaps = during.slice(1).map((at, i) => at - during[i]!);
  expect(Math.max(...gaps)).toBeLessThan(150);

  far.speak(rtp.port);
  await until("the far end's frame", async () => heard.length, (n) => n >= 1);
  expect(heard[0]!.equals(Buffer.alloc(160, 0x55))).toBe(true);
});
