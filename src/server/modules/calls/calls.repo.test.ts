import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { assistants, callEntries, calls, instances } from "../../db/schema.ts";
import { closeOrphanedCalls, InstanceLease, ORPHANED_CALL_REASON, renewLease } from "../../instances/instance-lease.ts";
import { findCall } from "./calls-history.repo.ts";
import { createDbCallStore } from "./calls.repo.ts";

const entryBody = (text: string) => ({ type: "assistant" as const, content: text, timestamp: "2026-11-21T10:00:01.000Z" });
const entry = (position: number, text: string) => ({ kind: "transcript" as const, position, body: entryBody(text) });
const logs = (text?: string) => ({
  isTest: true,
  transcript: text ? [{ type: "assistant" as const, content: text, timestamp: "2026-11-21T10:00:01.000Z" }] : [],
  toolsUsed: [],
});

describe("call records", () => {
  let app: TestApp;
  let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
  beforeAll(async () => {
    ({ app, db } = await buildTestApp());
  });
  afterAll(() => app.close());

  async function newAssistant(name: string) {
    const { organizationId } = await signUpAndLogIn(app);
    const [assistant] = await db.insert(assistants).values({ organizationId, name, model: "gpt-realtime-2.1" }).returning();
    return { organizationId, assistantId: assistant!.id };
  }
  const rowOf = async (id: string) => (await db.select().from(calls).where(eq(calls.id, id)))[0]!;

  it("inserts at start with the assistant's name and this instance, finishes, reads back, and survives the assistant's deletion", async () => {
    const { organizationId, assistantId } = await newAssistant("Front desk");
    const store = createDbCallStore(db, "instance-a");
    const id = await store.insert({ assistantId, organizationId, startTime: "2026-11-21T10:00:00.000Z", logs: logs() });
    expect(await store.read(id)).toEqual({ endTime: null, cost: null });
    expect((await rowOf(id)).instanceId).toBe("instance-a");
    await store.finish(id, { endTime: "2026-11-21T10:01:13.000Z", endedReason: "User ended call", cost: 0.07, logs: logs(), recording: "recordings/x.wav" });
    expect(await store.read(id)).toEqual({ endTime: "2026-11-21T10:01:13.000Z", cost: 0.07 });

    await db.delete(assistants).where(eq(assistants.id, assistantId));
    expect(await rowOf(id)).toMatchObject({ assistantId: null, assistantName: "Front desk", endedReason: "User ended call", cost: 0.07, recording: "recordings/x.wav" });
  });

  it("saves the changed entries as the call goes, shown in the call's details in order, and never beside the finished record", async () => {
    const { organizationId, assistantId } = await newAssistant("Progress");
    const store = createDbCallStore(db, "instance-a");
    const id = await store.insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() });
    const tool = { name: "Lookup", id: "t1", parameters: { order: "42" }, result: { ok: true }, timestamp: "2026-11-21T10:00:03.000Z" };
    await Promise.all([store.saveProgress(id, [entry(0, "one"), entry(2, "three")]), store.saveProgress(id, [entry(0, "one, two"), { kind: "tool", position: 0, body: tool }])]);
    // A slot filled late (position 1) lands between the others; a changed entry replaces its row.
    await store.saveProgress(id, [entry(1, "late")]);
    const details = (await findCall(db, organizationId, id))!.logs;
    expect(details).toEqual({ isTest: true, transcript: [entryBody("one, two"), entryBody("late"), entryBody("three")], toolsUsed: [tool] });
    expect((await rowOf(id)).logs).toEqual(logs());

    const late = store.saveProgress(id, [entry(3, "in flight")]);
    await store.finish(id, { endTime: new Date().toISOString(), endedReason: "User ended call", cost: 0.01, logs: logs("final"), recording: null });
    await late;
    await store.saveProgress(id, [entry(4, "after the end")]);
    expect((await rowOf(id)).logs).toEqual(logs("final"));
    expect((await findCall(db, organizationId, id))!.logs).toEqual(logs("final"));
    expect(await db.select().from(callEntries).where(eq(callEntries.callId, id))).toEqual([]);
  });

  it("writes the saves of calls that finish a turn together as one statement, each call keeping its own entries", async () => {
    const { organizationId, assistantId } = await newAssistant("Together");
    let statements = 0;
    // Counts what the store sends to the database (its saves are its only raw statements).
    const counted = new Proxy(db, {
      get: (target, key, receiver) =>
        key === "execute"
          ? (...args: Parameters<typeof db.execute>) => {
              statements += 1;
              return target.execute(...args);
            }
          : Reflect.get(target, key, receiver),
    });
    const store = createDbCallStore(counted, "instance-a");
    const ids = await Promise.all(Array.from({ length: 20 }, () => store.insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() })));
    const first = ids.map((id, i) => store.saveProgress(id, [entry(0, `hello ${i}`)]));
    await new Promise((resolve) => setImmediate(resolve));
    // Made while the first statement runs: they wait for it and go together in the next.
    const second = ids.map((id, i) => [store.saveProgress(id, [entry(1, `draft ${i}`)]), store.saveProgress(id, [entry(1, `answer ${i}`)])]).flat();
    await Promise.all([...first, ...second]);
    expect(statements).toBe(2);
    for (const [i, id] of ids.entries()) {
      expect((await findCall(db, organizationId, id))!.logs.transcript).toEqual([entryBody(`hello ${i}`), entryBody(`answer ${i}`)]);
    }
    await Promise.all(ids.map((id) => store.finish(id, { endTime: new Date().toISOString(), endedReason: "User ended call", cost: 0, logs: logs(), recording: null })));
  });

  it("closes only the calls whose instance's lease has lapsed, keeping what was saved", async () => {
    const { organizationId, assistantId } = await newAssistant("Night shift");
    await renewLease(db, "alive", 60_000);
    await renewLease(db, "dead", 60_000);
    const aliveStore = createDbCallStore(db, "alive");
    const deadStore = createDbCallStore(db, "dead");
    const onAlive = await aliveStore.insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() });
    const onDead = await deadStore.insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() });
    await deadStore.saveProgress(onDead, [entry(0, "Hello, how can I help?")]);
    const finished = await deadStore.insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() });
    await deadStore.finish(finished, { endTime: new Date().toISOString(), endedReason: "User ended call", cost: 0.05, logs: logs(), recording: null });

    expect(await closeOrphanedCalls(db)).toEqual([]);
    // The dead instance's lease runs out (as if its heartbeat stopped a lease ago).
    await db.update(instances).set({ leaseExpiresAt: new Date(Date.now() - 1000) }).where(eq(instances.id, "dead"));
    expect(await closeOrphanedCalls(db)).toEqual([onDead]);

    expect(await rowOf(onDead)).toMatchObject({ endedReason: ORPHANED_CALL_REASON, logs: logs("Hello, how can I help?") });
    expect((await rowOf(onDead)).endTime).not.toBeNull();
    expect(await rowOf(onAlive)).toMatchObject({ endTime: null, endedReason: null });
    expect(await rowOf(finished)).toMatchObject({ endedReason: "User ended call" });
    expect(await db.select().from(instances).where(eq(instances.id, "dead"))).toEqual([]);
  });

  it("at start closes calls left by an earlier run under the same INSTANCE_ID and records from before ownership", async () => {
    const { organizationId, assistantId } = await newAssistant("Restart");
    const previousRun = await createDbCallStore(db, "web-1").insert({ assistantId, organizationId, startTime: new Date().toISOString(), logs: logs() });
    const [legacy] = await db.insert(calls).values({ organizationId, assistantId, startTime: new Date(), logs: logs() }).returning({ id: calls.id });
    // The earlier run's lease may still be valid: it is the same id, so nobody else carries the call.
    await renewLease(db, "web-1", 60_000);
    const lease = new InstanceLease({ db, id: "web-1", leaseMs: 60_000, logger: { info() {}, warn() {}, error() {} } });
    await lease.start();
    await lease.stop();
    // Handed on once the app is ready (their analysis is queued then).
    expect([...lease.closedAtStart].sort()).toEqual([previousRun, legacy!.id].sort());
    expect(await rowOf(previousRun)).toMatchObject({ endedReason: ORPHANED_CALL_REASON });
    expect(await rowOf(legacy!.id)).toMatchObject({ endedReason: ORPHANED_CALL_REASON });
    expect(await db.select().from(instances).where(eq(instances.id, "web-1"))).toEqual([]);
  });
});
