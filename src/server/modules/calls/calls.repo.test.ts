import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../../../../tests/harness.ts";
import { assistants, calls } from "../../db/schema.ts";
import { closeInterruptedCalls, createDbCallStore } from "./calls.repo.ts";

describe("call records", () => {
  let app: TestApp;
  let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
  beforeAll(async () => {
    ({ app, db } = await buildTestApp());
  });
  afterAll(() => app.close());

  it("inserts at start with the assistant's name, finishes, reads back, and survives the assistant's deletion", async () => {
    const { userId } = await signUpAndLogIn(app);
    const [assistant] = await db.insert(assistants).values({ userId, name: "Front desk", model: "gpt-realtime-2.1" }).returning();
    const store = createDbCallStore(db);
    const id = await store.insert({ assistantId: assistant!.id, userId, startTime: "2026-11-21T10:00:00.000Z", logs: { isTest: true, transcript: [], toolsUsed: [] } });
    expect(await store.read(id)).toEqual({ endTime: null, cost: null });
    await store.finish(id, { endTime: "2026-11-21T10:01:13.000Z", endedReason: "User ended call", cost: 0.07, logs: { isTest: true, transcript: [], toolsUsed: [] }, recording: "recordings/x.wav" });
    expect(await store.read(id)).toEqual({ endTime: "2026-11-21T10:01:13.000Z", cost: 0.07 });

    const { eq } = await import("drizzle-orm");
    await db.delete(assistants).where(eq(assistants.id, assistant!.id));
    const [row] = await db.select().from(calls).where(eq(calls.id, id));
    expect(row).toMatchObject({ assistantId: null, assistantName: "Front desk", endedReason: "User ended call", cost: 0.07, recording: "recordings/x.wav" });
  });

  it("closes calls a crash left in progress, and only those", async () => {
    const { userId } = await signUpAndLogIn(app);
    const store = createDbCallStore(db);
    const [assistant] = await db.insert(assistants).values({ userId, name: "Night shift", model: "gpt-realtime-2.1" }).returning();
    const logs = { isTest: true, transcript: [], toolsUsed: [] };
    const open = await store.insert({ assistantId: assistant!.id, userId, startTime: new Date().toISOString(), logs });
    const done = await store.insert({ assistantId: assistant!.id, userId, startTime: new Date().toISOString(), logs });
    await store.finish(done, { endTime: new Date().toISOString(), endedReason: "User ended call", cost: 0.05, logs, recording: null });
    expect(await closeInterruptedCalls(db)).toBeGreaterThanOrEqual(1);
    const { eq } = await import("drizzle-orm");
    const [openRow] = await db.select().from(calls).where(eq(calls.id, open));
    const [doneRow] = await db.select().from(calls).where(eq(calls.id, done));
    expect(openRow).toMatchObject({ endedReason: "Server stopped during the call" });
    expect(openRow!.endTime).not.toBeNull();
    expect(doneRow).toMatchObject({ endedReason: "User ended call" });
  });
});
