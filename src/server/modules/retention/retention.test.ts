import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { signUpAndLogIn, useTestApp } from "../../../../tests/harness.ts";
import { calls } from "../../db/schema.ts";
import { runRetention } from "./retention.job.ts";

const file = useTestApp();
type Who = Awaited<ReturnType<typeof signUpAndLogIn>>;

const put = (who: Who, payload: Record<string, unknown>) => file.as(who).put("/api/settings/retention", payload);
const read = (who: Who) => file.as(who).get("/api/settings/retention");

describe("retention settings", () => {
  it("are off by default, saved per user, and refuse anything but whole days from 1 to 3650", async () => {
    const ann = await signUpAndLogIn(file.app);
    const bo = await signUpAndLogIn(file.app);
    expect((await read(ann)).json()).toEqual({ recordings_days: null, calls_days: null });
    const saved = await put(ann, { recordings_days: 30, calls_days: 365 });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toEqual({ recordings_days: 30, calls_days: 365 });
    expect((await read(ann)).json()).toEqual({ recordings_days: 30, calls_days: 365 });
    expect((await read(bo)).json()).toEqual({ recordings_days: null, calls_days: null });
    expect((await put(ann, { recordings_days: null, calls_days: 365 })).json()).toEqual({ recordings_days: null, calls_days: 365 });

    for (const bad of [{ recordings_days: 0, calls_days: null }, { recordings_days: 1.5, calls_days: null }, { recordings_days: null, calls_days: 3651 }, { recordings_days: "7", calls_days: null }, {}]) {
      const res = await put(ann, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.body).toContain("Enter a whole number of days from 1 to 3650");
    }
    expect((await read(ann)).json()).toEqual({ recordings_days: null, calls_days: 365 });
  });
});

describe("the retention job", () => {
  it("removes old recordings and old calls of users who asked, logs it, and leaves everything else", async () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    const daysAgo = (d: number) => new Date(now - d * 86_400_000);
    const cy = await signUpAndLogIn(file.app);
    const di = await signUpAndLogIn(file.app);
    const keeper = await signUpAndLogIn(file.app);
    await put(cy, { recordings_days: 7, calls_days: 30 });
    await put(di, { recordings_days: null, calls_days: 10 });

    async function call(organizationId: string, age: number, opts: { recording?: boolean; live?: boolean } = {}) {
      const [row] = await file.db
        .insert(calls)
        .values({ organizationId, startTime: daysAgo(age), endTime: opts.live ? null : daysAgo(age), endedReason: opts.live ? null : "User ended call" })
        .returning({ id: calls.id });
      const key = `recordings/${row!.id}.wav`;
      if (opts.recording) {
        await file.app.ctx.storage.put(key, Buffer.from("RIFF"), { contentType: "audio/wav" });
        await file.db.update(calls).set({ recording: key }).where(eq(calls.id, row!.id));
      }
      return { id: row!.id, key };
    }
    const cyFresh = await call(cy.organizationId, 2, { recording: true });
    const cyWeekOld = await call(cy.organizationId, 8, { recording: true });
    const cyOld = await call(cy.organizationId, 40, { recording: true });
    const cyOldLive = await call(cy.organizationId, 40, { live: true });
    const diOld = await call(di.organizationId, 11, { recording: true });
    const diFresh = await call(di.organizationId, 9);
    const keeperOld = await call(keeper.organizationId, 4000, { recording: true });

    const logged: Array<Record<string, unknown>> = [];
    const log = { info: (obj: object) => logged.push(obj as Record<string, unknown>), error: (obj: object) => logged.push({ error: obj }) };
    expect(await runRetention(file.db, file.app.ctx.storage, log, now)).toEqual({ users: 2, calls: 2, recordings: 3 });

    const left = new Map((await file.db.select({ id: calls.id, recording: calls.recording }).from(calls)).map((r) => [r.id, r.recording]));
    expect(left.get(cyFresh.id)).toBe(cyFresh.key);
    expect(left.has(cyWeekOld.id)).toBe(true);
    expect(left.get(cyWeekOld.id)).toBeNull();
    expect(left.has(cyOld.id)).toBe(false);
    expect(left.has(cyOldLive.id)).toBe(true); // a call in progress is never cut from under its engine
    expect(left.has(diOld.id)).toBe(false);
    expect(left.has(diFresh.id)).toBe(true);
    expect(left.get(keeperOld.id)).toBe(keeperOld.key);
    for (const [key, exists] of [[cyFresh.key, true], [cyWeekOld.key, false], [cyOld.key, false], [diOld.key, false], [keeperOld.key, true]] as const) {
      expect(await file.app.ctx.storage.exists(key), key).toBe(exists);
    }
    expect(logged).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ organizationId: cy.organizationId, calls: 1, recordings: 2 }),
        expect.objectContaining({ organizationId: di.organizationId, calls: 1, recordings: 1 }),
      ]),
    );
    // A second run finds nothing more.
    expect(await runRetention(file.db, file.app.ctx.storage, log, now)).toEqual({ users: 0, calls: 0, recordings: 0 });
  });
});
