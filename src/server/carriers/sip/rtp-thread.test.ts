/**
 * A call's RTP on the media thread: the far end (on a thread of its own here, as a phone is
 * elsewhere) keeps getting a frame every 20 ms while the server's main event loop is stuck, and
 * what it says reaches the call through the thread; and a media thread that dies ends its calls'
 * media rather than leaving them open, the next call getting a thread of its own.
 */
import { Session } from "node:inspector/promises";
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

/**
 * Ends the thread holding this process's RTP sockets as a crash there would (the thread exits, the
 * rest of the process goes on): through the inspector, which reaches every worker thread.
 */
async function crashMediaThread(): Promise<void> {
  const inspector = new Session();
  inspector.connect();
  const workers: string[] = [];
  const gone = new Set<string>();
  const replies = new Map<number, (value: unknown) => void>();
  inspector.on("NodeWorker.attachedToWorker", (m) => void workers.push((m.params as { sessionId: string }).sessionId));
  inspector.on("NodeWorker.detachedFromWorker", (m) => void gone.add((m.params as { sessionId: string }).sessionId));
  inspector.on("NodeWorker.receivedMessageFromWorker", (m) => {
    const reply = JSON.parse((m.params as { message: string }).message) as { id?: number; result?: { result?: { value?: unknown } } };
    if (reply.id !== undefined) replies.get(reply.id)?.(reply.result?.result?.value);
  });
  let nextId = 1;
  const evaluate = (sessionId: string, expression: string) =>
    new Promise<unknown>((resolve) => {
      const id = nextId++;
      replies.set(id, resolve);
      void inspector.post("NodeWorker.sendMessageToWorker", { sessionId, message: JSON.stringify({ id, method: "Runtime.evaluate", params: { expression, returnByValue: true } }) });
    });
  try {
    await inspector.post("NodeWorker.enable", { waitForDebuggerOnStart: false });
    await until("the process's worker threads", async () => workers.length, (n) => n > 0);
    for (const sessionId of workers) {
      if ((await evaluate(sessionId, `process.getActiveResourcesInfo().includes("UDPWrap")`)) !== true) continue;
      void evaluate(sessionId, "process.exit(1)");
      await until("the media thread's exit", async () => gone.has(sessionId), (g) => g);
      return;
    }
    throw new Error("no worker thread holds a UDP socket");
  } finally {
    inspector.disconnect();
  }
}

it("ends a call's media when the media thread dies, and gives the next call a new thread", async () => {
  const rtp = await openRtpOnThread({ host: "127.0.0.1", ports: { min: 36000, max: 36999 } });
  opened.push(rtp);
  let silent = false;
  // What a call does with it: hang up (a BYE), as for a phone that stopped sending.
  rtp.onSilent(() => (silent = true));

  await crashMediaThread();
  await until("the call told its media has ended", async () => silent, (s) => s);

  // Made only now: the far end's thread holds a UDP socket too.
  const far = await farEnd();
  const next = await openRtpOnThread({ host: "127.0.0.1", ports: { min: 36000, max: 36999 } });
  opened.push(next);
  next.configure({ codec: "PCMU", payloadType: 0, remoteAddress: "127.0.0.1", remotePort: far.port, direction: "sendrecv" });
  await until("the next call's packets", async () => (await far.arrivals()).length, (n) => n >= 5);
});
