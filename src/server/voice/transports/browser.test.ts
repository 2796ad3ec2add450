import { createServer, type Server } from "node:http";
import WebSocket, { WebSocketServer } from "ws";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../../shared/calls.ts";
import type { TransportHandlers } from "../seams.ts";
import { BrowserTransport } from "./browser.ts";

let server: Server;
let wss: WebSocketServer;
let url: string;

beforeEach(async () => {
  server = createServer();
  wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  url = `ws://127.0.0.1:${address.port}`;
});
afterEach(async () => {
  for (const client of wss.clients) client.terminate();
  await new Promise<void>((resolve) => wss.close(() => resolve()));
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function until(check: () => boolean, timeoutMs = 3000): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const poll = () => {
      if (check()) return resolve();
      if (Date.now() - started > timeoutMs) return reject(new Error("timeout"));
      setTimeout(poll, 5);
    };
    poll();
  });
}

/** A real ws pair: the server side wrapped in a BrowserTransport, the client side raw. */
async function pair(options: { heartbeatMs?: number; autoPong?: boolean } = {}) {
  const calls: Array<[string, ...unknown[]]> = [];
  const handlers: TransportHandlers = {
    audio: (chunk) => calls.push(["audio", Buffer.from(chunk)]),
    userText: (text) => calls.push(["userText", text]),
    playback: (itemId, ms) => calls.push(["playback", itemId, ms]),
    end: (reason) => calls.push(["end", reason]),
    disconnect: (left) => calls.push(["disconnect", left.reason, left.lastHeardAt !== undefined]),
  };
  const transportReady = new Promise<BrowserTransport>((resolve) =>
    wss.once("connection", (ws) => {
      const transport = new BrowserTransport(ws, { heartbeatMs: options.heartbeatMs ?? 0 });
      transport.start(handlers);
      resolve(transport);
    }),
  );
  const client = new WebSocket(url, { autoPong: options.autoPong ?? true });
  const received: Array<ServerMessage | Buffer> = [];
  let closed: [number, string] | null = null;
  client.on("message", (data, isBinary) => received.push(isBinary ? (data as Buffer) : (JSON.parse(data.toString()) as ServerMessage)));
  client.on("close", (code, reason) => (closed = [code, reason.toString()]));
  await new Promise<void>((resolve) => client.once("open", () => resolve()));
  const transport = await transportReady;
  return { transport, client, calls, received, closed: () => closed };
}

describe("BrowserTransport", () => {
  it("maps binary frames to audio and JSON frames to control handlers", async () => {
    const { client, calls } = await pair();
    client.send(Buffer.from([1, 0, 2, 0]), { binary: true });
    client.send(JSON.stringify({ type: "user_text", text: "hi" }));
    client.send(JSON.stringify({ type: "playback", itemId: "item_1", playedMs: 250 }));
    client.send(JSON.stringify({ type: "end" }));
    client.send(JSON.stringify({ type: "end", reason: "Sheet closed" }));
    await until(() => calls.length === 5);
    expect(calls).toEqual([
      ["audio", Buffer.from([1, 0, 2, 0])],
      ["userText", "hi"],
      ["playback", "item_1", 250],
      ["end", "User ended call"],
      ["end", "Sheet closed"],
    ]);
  });

  it("answers malformed control messages with an error", async () => {
    const { client, calls, received } = await pair();
    client.send("not json");
    client.send(JSON.stringify({ type: "end", reason: "because" }));
    await until(() => received.length === 2);
    expect(received).toEqual([
      { type: "error", message: "Invalid message" },
      { type: "error", message: "Invalid message" },
    ]);
    expect(calls).toEqual([]);
  });

  it("announces each item before its audio, and again after a clear", async () => {
    const { transport, received } = await pair();
    transport.sendAudio("item_a", Buffer.from([1, 2]));
    transport.sendAudio("item_a", Buffer.from([3, 4]));
    transport.clearPlayback(() => {});
    transport.sendAudio("item_a", Buffer.from([5, 6]));
    transport.sendAudio("item_b", Buffer.from([7, 8]));
    await until(() => received.length === 8);
    expect(received).toEqual([
      { type: "audio_start", itemId: "item_a" },
      Buffer.from([1, 2]),
      Buffer.from([3, 4]),
      { type: "clear" },
      { type: "audio_start", itemId: "item_a" },
      Buffer.from([5, 6]),
      { type: "audio_start", itemId: "item_b" },
      Buffer.from([7, 8]),
    ]);
  });

  it("closes with the code and a reason cut to 123 bytes, without reporting a disconnect", async () => {
    const { transport, calls, closed } = await pair();
    transport.close(1000, "x".repeat(200));
    transport.close(1011, "again");
    await until(() => closed() !== null);
    expect(closed()).toEqual([1000, "x".repeat(123)]);
    expect(calls).toEqual([]);
    transport.send({ type: "clear" }); // no-op after close
  });

  it("reports a browser that goes away, once", async () => {
    const { client, calls } = await pair();
    client.terminate();
    await until(() => calls.length > 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(calls).toEqual([["disconnect", "Client disconnected", false]]);
  });

  it("drops a browser that stops answering pings, reporting when it was last heard", async () => {
    const { calls, closed } = await pair({ heartbeatMs: 30, autoPong: false });
    await until(() => calls.length > 0);
    expect(calls).toEqual([["disconnect", "Client disconnected", true]]);
    await until(() => closed() !== null);
    expect(closed()?.[0]).toBe(1006);
  });
});
