import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { startFakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, sessionIdFor, signUpCaller, startLiveApp } from "../../../../tests/fakes/realtime-app.ts";
import { as, errorOf, signUpAndLogIn, useTestApp, expectBody } from "../../../../tests/harness.ts";
import type { CallPage, CallRecord, CallSummary } from "../../../shared/call-records.ts";
import type { TranscriptEntry } from "../../../shared/calls.ts";
import { assistants, calls } from "../../db/schema.ts";
import { writeStereoWav } from "../../voice/audio.ts";

const file = useTestApp({ users: ["Alice", "Bob"] });

type Who = { cookie: string };
const list = async (who: Who): Promise<CallSummary[]> => {
  const res = await as(file.app, who).get("/api/calls");
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as CallPage).data;
};
const detail = async (who: Who, id: string): Promise<CallRecord> => {
  return expectBody(await as(file.app, who).get(`/api/calls/${id}`), 200);
};

const at = (iso: string) => new Date(iso);
const TRANSCRIPT: TranscriptEntry[] = [
  { type: "assistant", content: "Hello, how can I help?", timestamp: "2026-03-14T15:04:06.000Z" },
  { type: "tool-request", content: "Calling tool Lookup Order", timestamp: "2026-03-14T15:04:20.000Z", parameters: { order_id: "42" } },
  { type: "tool-response", content: "Tool Lookup Order completed with status 200", timestamp: "2026-03-14T15:04:21.000Z", result: { status: "shipped" } },
];

async function insertCall(organizationId: string, values: Partial<typeof calls.$inferInsert> = {}) {
  const [row] = await file.db
    .insert(calls)
    .values({ organizationId, startTime: at("2026-03-14T15:04:05Z"), logs: { isTest: true, transcript: [], toolsUsed: [] }, ...values })
    .returning();
  return row!;
}

/** A short, valid 16-bit stereo WAV: 0.1 s of a ramp at 24 kHz. */
function smallWav(): Buffer {
  const samples = Int16Array.from({ length: 2400 }, (_, i) => (i % 200) * 100);
  return writeStereoWav(samples, samples, 24_000);
}

describe("authentication", () => {
  it("refuses both routes without a session", async () => {
    for (const url of ["/api/calls", "/api/calls/00000000-0000-4000-8000-000000000000"]) {
      const res = await as(file.app, null).get(url);
      expect(res.statusCode, url).toBe(401);
      expect(errorOf(res).message).toBe("Authentication required. Please sign in again.");
    }
  });
});

describe("GET /api/calls", () => {
  it("is empty for a user without calls", async () => {
    const fresh = await signUpAndLogIn(file.app);
    expect(await list(fresh)).toEqual([]);
  });

  it("lists only the user's own calls, newest start_time first, with every field", async () => {
    const carol = await signUpAndLogIn(file.app, "Carol");
    const [assistant] = await file.db.insert(assistants).values({ organizationId: carol.organizationId, name: "Ava", model: "gpt-realtime" }).returning();
    const older = await insertCall(carol.organizationId, {
      assistantId: assistant!.id,
      assistantName: "Ava",
      startTime: at("2026-03-14T15:04:05Z"),
      endTime: at("2026-03-14T15:05:17Z"),
      endedReason: "User ended call",
      cost: 0.07,
      logs: { isTest: true, transcript: TRANSCRIPT, toolsUsed: [] },
    });
    const newest = await insertCall(carol.organizationId, { assistantId: assistant!.id, assistantName: "Ava", startTime: at("2026-03-15T09:00:00Z") });
    const middle = await insertCall(carol.organizationId, { startTime: at("2026-03-14T20:00:00Z"), logs: { isTest: false, transcript: [] } });
    const others = await insertCall(file.users.Bob.organizationId, { startTime: at("2026-03-16T09:00:00Z") });

    const calls = await list(carol);
    expect(calls.map((c) => c.id)).toEqual([newest.id, middle.id, older.id]);
    expect(calls.map((c) => c.id)).not.toContain(others.id);
    // A summary: no transcript; the Customer of a browser test call is the user who made it.
    expect(calls[2]).toEqual({
      id: older.id,
      assistant_id: assistant!.id,
      assistant_name: "Ava",
      assistant_version: null,
      type: "Test",
      customer: "Carol",
      called_number: null,
      start_time: "2026-03-14T15:04:05.000Z",
      end_time: "2026-03-14T15:05:17.000Z",
      duration_ms: 72_000,
      cost: 0.07,
      cost_basis: "tariff",
      status: "completed",
      ended_reason: "User ended call",
      has_recording: false,
      direction: "inbound",
      campaign_id: null,
      twilio_status: null,
      analysis_status: null,
      success: null,
    });
    expect(calls[1]).toMatchObject({ type: "Real", status: "in_progress", duration_ms: null });
    expect(await detail(carol, older.id)).toEqual({
      ...calls[2],
      organization_id: carol.organizationId,
      recording_url: null,
      caller_number: null,
      call_sid: null,
      carrier: "twilio",
      campaign_name: null,
      sip_call_id: null,
      logs: { isTest: true, transcript: TRANSCRIPT, toolsUsed: [] },
      provider_cost: null,
      telephony_cost: null,
      analysis: null,
      variables: null,
    });
  });

  it("names the caller's number as the Customer of a phone call, and its Twilio CallSid in the details", async () => {
    const pat = await signUpAndLogIn(file.app, "Pat");
    const row = await insertCall(pat.organizationId, {
      providerCallSid: "CA0123456789abcdef0123456789abcdef",
      callerNumber: "+15551234567",
      calledNumber: "+15557654321",
      logs: { isTest: false, transcript: [] },
      endTime: at("2026-03-14T15:06:05Z"),
      endedReason: "Caller hung up",
    });
    expect(await list(pat)).toEqual([expect.objectContaining({ id: row.id, type: "Real", customer: "+15551234567", called_number: "+15557654321", duration_ms: 120_000 })]);
    expect(await detail(pat, row.id)).toMatchObject({ caller_number: "+15551234567", call_sid: "CA0123456789abcdef0123456789abcdef" });
  });

  it("shows a call in progress without end, reason or cost", async () => {
    const dave = await signUpAndLogIn(file.app);
    const row = await insertCall(dave.organizationId, { startTime: new Date() });
    const [call] = await list(dave);
    expect(call).toMatchObject({ id: row.id, end_time: null, ended_reason: null, cost: null, duration_ms: null, has_recording: false, status: "in_progress", type: "Test" });
  });

  it("keeps the name of a deleted assistant and shows the current name of a renamed one", async () => {
    const frank = await signUpAndLogIn(file.app);
    const [gone, renamed] = await file.db
      .insert(assistants)
      .values([
        { organizationId: frank.organizationId, name: "Old Bot", model: "gpt-realtime" },
        { organizationId: frank.organizationId, name: "Before", model: "gpt-realtime" },
      ])
      .returning();
    const deletedCall = await insertCall(frank.organizationId, { assistantId: gone!.id, assistantName: "Old Bot", startTime: at("2026-03-01T10:00:00Z") });
    const renamedCall = await insertCall(frank.organizationId, { assistantId: renamed!.id, assistantName: "Before", startTime: at("2026-03-02T10:00:00Z") });
    const del = await file.app.inject({ method: "DELETE", url: `/api/assistants/${gone!.id}`, headers: { cookie: frank.cookie } });
    expect(del.statusCode).toBe(204);
    await file.db.update(assistants).set({ name: "After" }).where(eq(assistants.id, renamed!.id));

    const byId = new Map((await list(frank)).map((c) => [c.id, c]));
    expect(byId.get(deletedCall.id)).toMatchObject({ assistant_id: null, assistant_name: "Old Bot" });
    expect(byId.get(renamedCall.id)).toMatchObject({ assistant_id: renamed!.id, assistant_name: "After" });
  });

  it("gives null logs for a record without any, and drops only the unreadable entries of damaged ones", async () => {
    const gina = await signUpAndLogIn(file.app);
    const empty = await insertCall(gina.organizationId, { logs: {}, startTime: at("2026-03-01T10:00:00Z") });
    const damaged = await insertCall(gina.organizationId, {
      startTime: at("2026-03-02T10:00:00Z"),
      logs: { transcript: [TRANSCRIPT[0], { type: "nonsense", content: 3 }], note: "kept" },
    });
    expect((await detail(gina, empty.id)).logs).toBeNull();
    expect((await detail(gina, damaged.id)).logs).toEqual({ transcript: [TRANSCRIPT[0]], note: "kept" });
    expect((await list(gina)).map((c) => c.type)).toEqual(["Unknown", "Unknown"]);
  });
});

describe("GET /api/calls/:id", () => {
  it("answers the user's own call and 404 for anyone else's, a missing or a malformed id", async () => {
    const mine = await insertCall(file.users.Alice.organizationId, { endTime: at("2026-03-14T15:05:00Z"), endedReason: "Sheet closed", cost: 0.05 });
    const ok = await as(file.app, file.users.Alice).get(`/api/calls/${mine.id}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ id: mine.id, organization_id: file.users.Alice.organizationId, ended_reason: "Sheet closed", cost: 0.05 });

    for (const [who, id] of [
      [file.users.Bob, mine.id],
      [file.users.Alice, "00000000-0000-4000-8000-000000000000"],
      [file.users.Alice, "not-a-uuid"],
    ] as const) {
      const res = await as(file.app, who).get(`/api/calls/${id}`);
      expect(res.statusCode, id).toBe(404);
      expect(errorOf(res)).toEqual({ code: "not_found", message: "Call not found" });
    }
    expect((await list(file.users.Bob)).map((c) => c.id)).not.toContain(mine.id);
  });
});

describe("recordings", () => {
  it("signs the recording for an hour and the media route serves it as WAV, with ranges", async () => {
    const harry = await signUpAndLogIn(file.app);
    const wav = smallWav();
    const row = await insertCall(harry.organizationId, { endTime: at("2026-03-14T15:04:15Z"), endedReason: "User ended call", cost: 0.05 });
    await file.app.ctx.storage.put(`recordings/${row.id}.wav`, wav, { contentType: "audio/wav" });
    await file.db.update(calls).set({ recording: `recordings/${row.id}.wav` }).where(eq(calls.id, row.id));

    const before = Date.now();
    const [listed] = await list(harry);
    expect(listed!.has_recording).toBe(true);
    const single = await detail(harry, row.id);
    for (const url of [single.recording_url]) {
      expect(url).toMatch(new RegExp(`^/api/media/recordings/${row.id}\\.wav\\?exp=\\d+&sig=[\\w-]+$`));
      const exp = Number(new URL(url!, "http://x").searchParams.get("exp"));
      expect(exp - before).toBeGreaterThanOrEqual(3_600_000);
      expect(exp - Date.now()).toBeLessThanOrEqual(3_600_000);

      // The address works without the session cookie: an <audio> element fetches it as is.
      const media = await as(file.app, null).get(url!);
      expect(media.statusCode).toBe(200);
      expect(media.headers["content-type"]).toBe("audio/wav");
      expect(media.rawPayload.equals(wav)).toBe(true);
      const ranged = await as(file.app, null).get(url!, { range: "bytes=0-43" });
      expect(ranged.statusCode).toBe(206);
      expect(ranged.rawPayload.subarray(0, 4).toString()).toBe("RIFF");
    }

    // Without a valid signature the recording is not served.
    const forged = single.recording_url!.replace(/sig=[\w-]+/, `sig=${"A".repeat(43)}`);
    expect((await as(file.app, null).get(forged)).statusCode).toBe(403);
  });

  it("is null when the call has no recording", async () => {
    const ivy = await signUpAndLogIn(file.app);
    const row = await insertCall(ivy.organizationId, { endTime: at("2026-03-14T15:04:15Z"), endedReason: "User ended call", cost: 0.05, recording: null });
    expect((await list(ivy))[0]!.has_recording).toBe(false);
    expect((await detail(ivy, row.id)).recording_url).toBeNull();
  });
});

describe("a real test call", () => {
  it("is listed in progress while it runs, then with its end, cost, transcript and a playable recording", { timeout: 60_000 }, async () => {
    const fake = await startFakeRealtime({ apiKey: "sk-history-test" });
    const live = await startLiveApp(fake);
    try {
      const caller = await signUpCaller(live.app, fake.apiKey);
      const assistant = await createAssistant(live.app, caller, { name: "Ava" });
      const browser = await openLiveSocket(live, caller, await sessionIdFor(live.app, caller, assistant.id));
      await browser.until(() => browser.of("started").length > 0, "call record");
      await browser.until(() => browser.statuses().includes("Assistant finished responding"), "first message");
      const callId = browser.of("started")[0]!.callId;
      const listAt = async () => ((await live.app.inject({ url: "/api/calls", headers: { cookie: caller.cookie } })).json() as CallPage).data;
      const detailOf = async () => (await live.app.inject({ url: `/api/calls/${callId}`, headers: { cookie: caller.cookie } })).json() as CallRecord;

      const [running] = await listAt();
      expect(running).toMatchObject({ id: callId, assistant_id: assistant.id, assistant_name: "Ava", end_time: null, cost: null, has_recording: false, type: "Test", status: "in_progress" });

      browser.end();
      await browser.untilClosed();
      const [listed] = await listAt();
      expect(listed).toMatchObject({ id: callId, ended_reason: "User ended call", cost: 0.05, has_recording: true, status: "completed" });
      const ended = await detailOf();
      expect(ended).toMatchObject({ id: callId, ended_reason: "User ended call", cost: 0.05, logs: { isTest: true } });
      // The fake reports 80 input and 20 output tokens per response without a text/audio split (counted as text).
      const realtime = ended.provider_cost!.lines.find((l) => l.kind === "realtime")!;
      expect(realtime).toMatchObject({ text_in: 80, text_out: 20, audio_in: 0, audio_out: 0 });
      expect(ended.provider_cost!.total).toBeGreaterThan(0);
      expect(ended!.end_time).not.toBeNull();
      expect(ended!.logs!.transcript!.map((e) => [e.type, e.content])).toEqual([["assistant", "Hello, this is Ava. How can I help?"]]);
      const media = await live.app.inject({ url: ended!.recording_url! });
      expect(media.statusCode).toBe(200);
      expect(media.headers["content-type"]).toBe("audio/wav");
      expect(media.rawPayload.subarray(0, 4).toString()).toBe("RIFF");
    } finally {
      await live.app.close();
      await fake.close();
    }
  });
});
