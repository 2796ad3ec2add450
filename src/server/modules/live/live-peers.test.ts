import type { FastifyBaseLogger } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import type { LiveCallSummary } from "../../../shared/live.ts";
import { localBus } from "../../db/bus.ts";
import type { CallSupervision, SupervisionListener } from "../../voice/supervision.ts";
import { BOARD_CHANNEL, LivePeers } from "./live-peers.ts";

/**
 * The other instances' calls as one instance's board knows them: an instance started late learns
 * the calls already going on elsewhere, per account; an instance that stops (bye) or goes silent
 * (it died: no refresh for three periods) has its calls taken off the board.
 */
const log = { warn: () => {} } as unknown as FastifyBaseLogger;
const summary = (callId: string): LiveCallSummary => ({
  callId,
  assistant: { id: "a1", name: "Ava" },
  kind: "test",
  callerNumber: null,
  calledNumber: null,
  startedAt: new Date(0).toISOString(),
  lastSaid: null,
  stuck: [],
  takenOverBy: null,
  bridgedTo: null,
  watchers: 0,
});

function carrying(calls: Array<{ org: string; callId: string }>) {
  let board: SupervisionListener | null = null;
  return {
    watchBoard: (listener: SupervisionListener) => ((board = listener), () => (board = null)),
    supervised: () => calls.map(({ org, callId }) => ({ organizationId: org, callId, summary: () => summary(callId) }) as unknown as CallSupervision),
    carriedOnBoard: () => [],
    get board() {
      return board;
    },
  };
}

const started: LivePeers[] = [];
afterEach(async () => {
  for (const peers of started.splice(0)) await peers.stop();
});

async function start(bus: ReturnType<typeof localBus>, id: string, calls: Array<{ org: string; callId: string }>, refreshMs?: number) {
  const peers = new LivePeers(bus, id, carrying(calls), log, refreshMs);
  await peers.start();
  started.push(peers);
  return peers;
}

describe("the other instances' calls", () => {
  it("a late instance learns the calls going on elsewhere, per account; a stopping one's calls leave", async () => {
    const bus = localBus();
    const a = await start(bus, "A", [{ org: "org1", callId: "c1" }, { org: "org2", callId: "c2" }]);
    const b = await start(bus, "B", []);
    await expect.poll(() => b.remoteCalls("org1").map((c) => c.callId)).toEqual(["c1"]);
    expect(b.remoteCalls("org2").map((c) => c.callId)).toEqual(["c2"]);
    expect(b.carrierOf("org1", "c1")).toBe("A");
    expect(b.carrierOf("org2", "c1")).toBeNull();
    const removed: string[] = [];
    b.watch({ updated: () => {}, removed: (_org, callId) => removed.push(callId) });
    await a.stop();
    started.splice(started.indexOf(a), 1);
    await expect.poll(() => removed.sort()).toEqual(["c1", "c2"]);
    expect(b.remoteCalls("org1")).toEqual([]);
  });

  it("a call's changes reach the other instances gathered in one message, the latest summary, and its end", async () => {
    const bus = localBus();
    const published: string[] = [];
    const counting = { ...bus, publish: (channel: string, payload: string) => (published.push(payload), bus.publish(channel, payload)) };
    const carried = carrying([]);
    const a = new LivePeers(counting, "A", carried, log);
    await a.start();
    started.push(a);
    const b = await start(bus, "B", []);
    const updated: string[] = [];
    b.watch({ updated: (_org, call) => updated.push(call.lastSaid?.text ?? ""), removed: () => {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    published.length = 0;
    const supervision = { organizationId: "org1", callId: "c1" } as unknown as CallSupervision;
    for (const lastSaid of ["Hello", "Hello, how", "Hello, how can I help?"]) carried.board!.changed(supervision, { ...summary("c1"), lastSaid: { speaker: "assistant", text: lastSaid } });
    carried.board!.changed({ organizationId: "org1", callId: "c2" } as unknown as CallSupervision, summary("c2"));
    await expect.poll(() => b.remoteCalls("org1").map((c) => [c.callId, c.lastSaid?.text])).toEqual([["c1", "Hello, how can I help?"], ["c2", undefined]]);
    expect(updated).toEqual(["Hello, how can I help?", ""]);
    expect(published).toHaveLength(1);
    carried.board!.removed(supervision);
    await expect.poll(() => b.remoteCalls("org1").map((c) => c.callId)).toEqual(["c2"]);
    expect(published).toHaveLength(2);
  });

  it("an instance that goes silent has its calls taken off after three refresh periods", async () => {
    const bus = localBus();
    const b = await start(bus, "B", [], 200);
    await bus.publish(BOARD_CHANNEL, JSON.stringify({ t: "all", from: "dead", calls: [{ org: "org1", call: summary("c9") }] }));
    await expect.poll(() => b.remoteCalls("org1").length).toBe(1);
    await expect.poll(() => b.remoteCalls("org1").length).toBe(0);
  });
});
