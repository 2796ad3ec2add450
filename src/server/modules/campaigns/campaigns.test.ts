import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Caller } from "../../../../tests/fakes/realtime-app.ts";
import { phoneOwner, campaignLine, setUpDialOut } from "../../../../tests/fakes/twilio-app.ts";
import { startWebhookReceiver } from "../../../../tests/fakes/webhook-receiver.ts";
import { eq, inArray } from "drizzle-orm";
import { CAMPAIGN_TEXTS, type Campaign, type CampaignContactPage } from "../../../shared/campaigns.ts";
import { DIAL_SAFETY_TEXTS } from "../../../shared/dial-safety.ts";
import { OUTBOUND_ENDED } from "../../../shared/outbound.ts";
import { PERMISSIONS } from "../../../shared/roles.ts";
import { joinAs } from "../../../../tests/team.ts";
import { encodeCursor } from "../../http/pages.ts";
import { calls } from "../../db/schema.ts";
import { until } from "../../../../tests/until.ts";

/**
 * Campaigns end to end: the real app dialling through the durable job queue, the fake Twilio
 * playing each callee, and a controllable clock for calling windows, retries and pacing.
 */

const OURS = "+15550100";
let owner: Caller;
let assistantId: string;
let numberId: string;
// Monday 23 November 2026, 15:00 UTC: 10:00 in New York, 15:00 in London, 00:00 Tuesday in Tokyo.
let now = new Date("2026-11-23T15:00:00Z");
// When set, each read of the clock (one per dialler tick) moves it on by this much: ticks this far apart.
let clockStepMs = 0;
let onClockRead: ((at: Date) => void) | null = null;
const clock = () => {
  const at = now;
  now = new Date(now.getTime() + clockStepMs);
  onClockRead?.(at);
  return at;
};

const out = setUpDialOut({ apiKey: "sk-campaign-test", ours: OURS, config: { JOB_POLL_INTERVAL_MS: "500" }, deps: { clock }, farEnd: { talkMs: 400 } });
beforeAll(async () => {
  ({ owner, assistantId, numberId } = await campaignLine(out.app, out.fake.apiKey, OURS));
});
beforeEach(() => {
  out.farEnd.setDefault("no-answer");
});

const send = (method: "GET" | "POST", url: string, payload?: object) => out.app.app.inject({ method, url, headers: { cookie: owner.cookie }, ...(payload ? { payload } : {}) });
const weekdays = { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" }] };
const placedTo = (phone: string) => out.farEnd.placed.filter((p) => p.to === phone).length;

const campaign = (id: string) => send("GET", `/api/campaigns/${id}`).then((r) => r.json() as Campaign);

// Each test waits on real ticks of the job queue: generous on a busy machine.
describe("campaigns", { timeout: 120_000 }, () => {
  it("validates the CSV by row, dials in each contact's own calling window, re-checks the do-not-call list, retries what it should", async () => {
    await send("POST", "/api/dnc", { phone: "+15550001003" });
    const csv = [
      "phone,first_name,timezone",
      "+15550001001,Ann,America/New_York",
      "+15550001002,Bob,Asia/Tokyo",
      "not a number,Cy,",
      "+1 555 000 1001,Dup,",
      "+15550001003,Dee,Europe/London",
      "+15550001004,Eve,Mars/Base",
      "+15550001005,Fay,",
    ].join("\n");
    const res = await send("POST", "/api/campaigns", {
      name: "Reminders",
      assistant_id: assistantId,
      phone_number_id: numberId,
      contacts_csv: csv,
      max_concurrent_calls: 5,
      schedule: weekdays,
      retry: { max_attempts: 2, delay_seconds: 60, on: ["no_answer"] },
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      status: "draft",
      contacts: {
        valid: 3,
        invalid: [
          { row: 3, phone: "not a number", reason: CAMPAIGN_TEXTS.invalidPhone },
          { row: 4, phone: "+1 555 000 1001", reason: CAMPAIGN_TEXTS.duplicate },
          { row: 5, phone: "+15550001003", reason: CAMPAIGN_TEXTS.dnc },
          { row: 6, phone: "+15550001004", reason: CAMPAIGN_TEXTS.badTimeZone },
        ],
      },
    });
    const id = body.id as string;
    // Put on the list after the upload: checked again right before the dial.
    await send("POST", "/api/dnc", { phone: "+15550001005" });
    expect(placedTo("+15550001001")).toBe(0);
    expect((await send("POST", `/api/campaigns/${id}/start`)).json().status).toMatch(/running|waiting/);
    expect((await send("POST", `/api/campaigns/${id}/start`)).statusCode).toBe(409);

    // New York is open: dialled, no answer, a retry scheduled; Fay never dialled; Tokyo waits.
    const first = await until("the first round", () => campaign(id), (c) => c.counts.retries_scheduled === 1 && c.counts.dnc === 1 && c.status === "waiting");
    expect(first.waiting_reason).toBe(CAMPAIGN_TEXTS.outsideWindows);
    expect(placedTo("+15550001001")).toBe(1);
    expect(placedTo("+15550001005")).toBe(0);
    expect(placedTo("+15550001002")).toBe(0);

    // A minute later the retry is due: dialled again, and done after its second attempt.
    now = new Date(now.getTime() + 61_000);
    await until("the retry", () => campaign(id), (c) => c.counts.no_answer === 1 && c.counts.retries_scheduled === 0);
    expect(placedTo("+15550001001")).toBe(2);
    expect(placedTo("+15550001002")).toBe(0);

    // Tuesday 09:30 in Tokyo: Bob is called, twice, and the campaign completes.
    now = new Date("2026-11-24T00:30:00Z");
    await until("Tokyo's first call", () => campaign(id), (c) => c.counts.retries_scheduled === 1);
    now = new Date(now.getTime() + 61_000);
    const done = await until("completion", () => campaign(id), (c) => c.status === "completed");
    expect(done.counts).toMatchObject({ pending: 0, calling: 0, no_answer: 2, dnc: 1 });
    expect(placedTo("+15550001002")).toBe(2);

    const contacts = (await send("GET", `/api/campaigns/${id}/contacts?limit=2`)).json();
    expect(contacts.data.map((c: { row: number }) => c.row)).toEqual([1, 2]);
    expect(contacts.data[0]).toMatchObject({ phone: "+15550001001", attempts: 2, last_outcome: "no_answer", call_id: expect.any(String) });
    const rest2 = (await send("GET", `/api/campaigns/${id}/contacts?cursor=${contacts.next_cursor}`)).json();
    expect(rest2.data).toEqual([expect.objectContaining({ row: 7, attempts: 1, last_outcome: "dnc" })]);
    const exported = await send("GET", `/api/campaigns/${id}/contacts.csv`);
    expect(exported.headers).toMatchObject({ "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="campaign-${id}.csv"`, "cache-control": "no-store" });
    expect(exported.body.split("\r\n")[0]).toBe("row,phone,attempts,last_outcome,state,call_id");
    expect(exported.body).toContain("1,+15550001001,2,no_answer,done,");
  });

  it("never has more calls at once than max_concurrent_calls, starts at most calls_per_minute, and stops at once on Pause", async () => {
    out.farEnd.setDefault("answer");
    out.farEnd.resetPeak();
    const phones = Array.from({ length: 8 }, (_, i) => `+1555000200${i}`);
    const res = await send("POST", "/api/campaigns", {
      name: "Paced",
      assistant_id: assistantId,
      phone_number_id: numberId,
      contacts_csv: ["phone,first_name", ...phones.map((p, i) => `${p},P${i}`)].join("\n"),
      max_concurrent_calls: 2,
      calls_per_minute: 36,
      schedule: weekdays,
    });
    const id = res.json().id as string;
    now = new Date("2026-11-25T12:00:00Z");
    await send("POST", `/api/campaigns/${id}/start`);
    const placed = () => phones.reduce((n, p) => n + placedTo(p), 0);
    // On a frozen clock, only the pacing's first ten seconds' worth (6 of 36 a minute), never more than two at once.
    await until("six calls", async () => placed(), (n) => n >= 6, 30_000);
    await until("the sixth call ended", () => campaign(id), (c) => c.counts.calling === 0);
    expect(placed()).toBe(6);
    expect(out.farEnd.peak).toBeLessThanOrEqual(2);

    await send("POST", `/api/campaigns/${id}/pause`);
    now = new Date(now.getTime() + 61_000);
    await new Promise((r) => setTimeout(r, 2500));
    expect(placed()).toBe(6);
    expect((await campaign(id)).status).toBe("paused");

    await send("POST", `/api/campaigns/${id}/resume`);
    const done = await until("completion", () => campaign(id), (c) => c.status === "completed", 30_000);
    expect(done.counts.completed).toBe(8);
    expect(placed()).toBe(8);
    expect(out.farEnd.peak).toBeLessThanOrEqual(2);
    expect((await send("POST", `/api/campaigns/${id}/cancel`)).statusCode).toBe(409);

    // Success by outcome: once its calls are analysed, the campaign says how many passed and failed.
    const callIds = ((await send("GET", `/api/campaigns/${id}/contacts`)).json() as CampaignContactPage).data.map((c) => c.call_id!);
    expect(done.success_by_outcome).toEqual([]);
    // The analysis of the calls themselves (a transcript with nothing said) settles first; then the scores are the test's.
    await until("the calls' own analysis", () => out.app.db.select({ a: calls.analysis }).from(calls).where(inArray(calls.id, callIds)), (rows) => rows.every((r) => r.a?.status !== "pending"));
    const scored = (value: string | null, status: "done" | "pending" = "done") => ({
      status,
      summary: null,
      data: {},
      success: value === null ? null : { value, reason: "The callee confirmed." },
      model: "gpt-5-mini",
      cost: 0,
      completed_at: status === "done" ? new Date().toISOString() : null,
    });
    const values = ["pass", "pass", "fail", "pass", "pass", "fail", null, "pass"];
    for (const [i, callId] of callIds.entries()) {
      await out.app.db.update(calls).set({ analysis: i === 7 ? scored("pass", "pending") : scored(values[i]!) }).where(eq(calls.id, callId));
    }
    expect((await campaign(id)).success_by_outcome).toEqual([
      { outcome: "completed", analysed: 6, values: [{ value: "pass", count: 4 }, { value: "fail", count: 2 }] },
    ]);
  });

  it("is not Waiting while it calls a contact whose own zone is open; paused, it counts a call that ends at once", async () => {
    const ringing = "+15550003001";
    out.farEnd.script(ringing, "ring");
    // Monday 15:00 UTC: 10:00 in New York (open), midnight in Tokyo, the campaign's own zone (closed).
    now = new Date("2026-11-30T15:00:00Z");
    const res = await send("POST", "/api/campaigns", {
      name: "Zones",
      assistant_id: assistantId,
      phone_number_id: numberId,
      contacts_csv: ["phone,timezone", `${ringing},America/New_York`, "+15550003002,"].join("\n"),
      max_concurrent_calls: 2,
      schedule: { timezone: "Asia/Tokyo", windows: weekdays.windows },
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().id as string;
    const started = await send("POST", `/api/campaigns/${id}/start`);
    expect(started.statusCode, started.body).toBe(200);
    await out.farEnd.callTo(ringing, 30_000);
    // Two more ticks while New York's contact is still ringing and Tokyo's waits for its window.
    let ticks = 0;
    onClockRead = () => void (ticks += 1);
    await until("two ticks after the dial", async () => ticks, (n) => n >= 2);
    onClockRead = null;
    const calling = await campaign(id);
    expect(calling.counts.calling).toBe(1);
    expect(calling).toMatchObject({ status: "running", waiting_reason: null });

    await send("POST", `/api/campaigns/${id}/pause`);
    const callId = ((await send("GET", `/api/campaigns/${id}/contacts`)).json() as CampaignContactPage).data[0]!.call_id!;
    expect((await send("POST", `/api/calls/${callId}/cancel`)).statusCode).toBe(200);
    const paused = await until("the ended call counted while paused", () => campaign(id), (c) => c.counts.calling === 0);
    expect(paused.status).toBe("paused");
    expect(paused.counts).toMatchObject({ failed: 1, pending: 1 });
    expect((await send("POST", `/api/campaigns/${id}/resume`)).statusCode).toBe(200);
    expect((await send("POST", `/api/campaigns/${id}/cancel`)).statusCode).toBe(200);

    // Who started, paused, resumed and cancelled the dialling, and who stopped its call.
    const audit = (await send("GET", "/api/audit-log?limit=50")).json().data as Array<{ action: string; target_id: string | null; target_name: string | null }>;
    for (const action of ["campaign.started", "campaign.paused", "campaign.resumed", "campaign.cancelled"]) {
      expect(audit.find((e) => e.action === action && e.target_id === id), action).toMatchObject({ target_name: "Zones" });
    }
    expect(audit.find((e) => e.action === "call.cancelled" && e.target_id === callId)).toBeDefined();
  });

  it("starts the configured calls per minute when the dialler's ticks come two seconds apart", async () => {
    out.farEnd.setDefault("no-answer");
    const phones = Array.from({ length: 90 }, (_, i) => `+155500060${String(i).padStart(2, "0")}`);
    const res = await send("POST", "/api/campaigns", {
      name: "Sixty a minute",
      assistant_id: assistantId,
      phone_number_id: numberId,
      contacts_csv: ["phone", ...phones].join("\n"),
      max_concurrent_calls: 40,
      calls_per_minute: 60,
      schedule: weekdays,
    });
    const id = res.json().id as string;
    now = new Date("2026-11-26T12:00:00Z");
    const minuteEnds = now.getTime() + 60_000;
    let inFirstMinute: number | null = null;
    const placed = () => phones.reduce((n, p) => n + placedTo(p), 0);
    // A tick's dials are placed before the next tick reads the clock: the count when a tick first reads the next minute is the first minute's.
    onClockRead = (at) => {
      if (inFirstMinute === null && at.getTime() >= minuteEnds) inFirstMinute = placed();
    };
    clockStepMs = 2000;
    try {
      await send("POST", `/api/campaigns/${id}/start`);
      await until("a minute of the campaign's clock", async () => inFirstMinute, (n) => n !== null, 200_000);
    } finally {
      clockStepMs = 0;
      onClockRead = null;
      await send("POST", `/api/campaigns/${id}/cancel`);
    }
    expect(inFirstMinute).toBe(60);
  }, 240_000);

  it("sends campaign.started and campaign.completed, and its calls' call.* events (answered or not) carry the campaign's id and the contact's variables", async () => {
    out.farEnd.setDefault("answer");
    out.farEnd.script("+15550007102", "no-answer");
    const receiver = await startWebhookReceiver();
    try {
      const endpoint = await send("POST", "/api/webhooks", { url: receiver.url, events: ["campaign.started", "campaign.completed", "call.started", "call.ended", "call.analyzed"] });
      expect(endpoint.statusCode, endpoint.body).toBe(201);
      receiver.secret = (endpoint.json() as { secret: string }).secret;
      const res = await send("POST", "/api/campaigns", {
        name: "Hooked",
        assistant_id: assistantId,
        phone_number_id: numberId,
        contacts_csv: "phone,first_name\n+15550007101,Gus\n+15550007102,Hal",
        max_concurrent_calls: 1,
        schedule: weekdays,
      });
      const id = res.json().id as string;
      await send("POST", `/api/campaigns/${id}/start`);
      await until("completion", () => campaign(id), (c) => c.status === "completed");
      // The endpoint hears the whole organisation (earlier tests' calls too): this campaign's events.
      const of = (type: string) => receiver.requests.filter((r) => r.type === type && r.verified && r.data["campaign_id"] === id);
      // Hal never answered: no call.started nor analysis, but his call's end is reported too.
      await until("every event", async () => ["campaign.started", "campaign.completed", "call.started", "call.ended", "call.analyzed"].map((t) => of(t).length), (n) => n.join() === "1,1,1,2,1");
      expect(of("campaign.started")[0]!.data).toMatchObject({ campaign_id: id, name: "Hooked", status: "running" });
      expect(of("campaign.completed")[0]!.data).toMatchObject({ campaign_id: id, status: "completed", counts: { completed: 1, no_answer: 1, pending: 0 } });
      const contact = { campaign_id: id, variables: expect.objectContaining({ first_name: "Gus", direction: "outbound", called_number: "+15550007101" }) };
      expect(of("call.started")[0]!.data).toMatchObject({ ...contact, direction: "outbound" });
      const ended = of("call.ended").map((r) => r.data);
      expect(ended.find((d) => d["called_number"] === "+15550007101")).toMatchObject({ ...contact, direction: "outbound" });
      expect(ended.find((d) => d["called_number"] === "+15550007102")).toMatchObject({
        campaign_id: id,
        direction: "outbound",
        ended_reason: OUTBOUND_ENDED.noAnswer,
        variables: expect.objectContaining({ first_name: "Hal" }),
        transcript: [],
      });
      expect(of("call.analyzed")[0]!.data).toMatchObject(contact);
    } finally {
      await receiver.close();
    }
  });

  it("reads 100,000 contacts streamed to a draft as they arrive, and refuses the 100,001st row leaving no contacts", async () => {
    const res = await send("POST", "/api/campaigns", { name: "Big list", assistant_id: assistantId, phone_number_id: numberId, max_concurrent_calls: 1, schedule: weekdays });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().contacts).toEqual({ valid: 0, invalid: [] });
    const id = res.json().id as string;
    const stored = async () => ((await send("GET", `/api/campaigns/${id}`)).json() as Campaign).counts.pending;
    /** A CSV of `rows` contacts made as it is sent; past `pauseAt` rows it waits until the server has stored some (it reads as they arrive). */
    const upload = (rows: number, pauseAt: number) => {
      let row = 0;
      let proved = false;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          if (row === 0) controller.enqueue(new TextEncoder().encode("phone,first_name\n"));
          if (row >= pauseAt && !proved) {
            await until("rows stored before the upload ended", stored, (n) => n > 0, 60_000);
            proved = true;
          }
          const lines: string[] = [];
          for (let i = 0; i < 2000 && row < rows; i += 1, row += 1) lines.push(`+1444${String(row).padStart(7, "0")},C${row}`);
          if (lines.length === 0) return controller.close();
          controller.enqueue(new TextEncoder().encode(lines.join("\n") + "\n"));
        },
      });
      return fetch(`${out.app.origin}/api/campaigns/${id}/contacts`, { method: "PUT", headers: { cookie: owner.cookie, "content-type": "text/csv" }, body, duplex: "half" } as RequestInit);
    };
    const ok = await upload(100_000, 50_000);
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await ok.json()).toEqual({ valid: 100_000, invalid: [] });
    expect(await stored()).toBe(100_000);
    const last = (await send("GET", `/api/campaigns/${id}/contacts?cursor=${encodeCursor([99_999])}`)).json() as CampaignContactPage;
    expect(last.data).toEqual([expect.objectContaining({ row: 100_000, phone: "+14440099999", variables: { first_name: "C99999" } })]);

    const tooMany = await upload(100_001, 100_001);
    expect(tooMany.status).toBe(400);
    expect(((await tooMany.json()) as { error: { message: string } }).error.message).toBe(CAMPAIGN_TEXTS.tooMany);
    expect(await stored()).toBe(0);

    await send("POST", `/api/campaigns/${id}/cancel`);
    const late = await send("GET", `/api/campaigns/${id}`);
    expect(late.json().status).toBe("cancelled");
    const refused = await fetch(`${out.app.origin}/api/campaigns/${id}/contacts`, { method: "PUT", headers: { cookie: owner.cookie, "content-type": "text/csv" }, body: "phone\n+15550009999" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(CAMPAIGN_TEXTS.notDraft);
  }, 600_000);

  it("answers 404 for another user's campaign and 400 for a CSV without a phone column", async () => {
    const bad = await send("POST", "/api/campaigns", { name: "X", assistant_id: assistantId, phone_number_id: numberId, contacts_csv: "number\n+15550003000", max_concurrent_calls: 1, schedule: weekdays });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toBe(CAMPAIGN_TEXTS.phoneColumn);
    const other = await phoneOwner(out.app, out.fake.apiKey);
    const mine = (await send("GET", "/api/campaigns")).json().data as Campaign[];
    expect(mine.length).toBeGreaterThan(0);
    const theirs = await out.app.app.inject({ method: "GET", url: `/api/campaigns/${mine[0]!.id}`, headers: { cookie: other.cookie } });
    expect(theirs.statusCode).toBe(404);
    expect((await out.app.app.inject({ method: "POST", url: `/api/campaigns/${mine[0]!.id}/cancel`, headers: { cookie: other.cookie } })).statusCode).toBe(404);
  });
});

describe("contacts: dial safety, CSV bounds, who may download", () => {
  const draft = async (contacts_csv?: string) => {
    const res = await send("POST", "/api/campaigns", { name: "Checks", assistant_id: assistantId, phone_number_id: numberId, max_concurrent_calls: 1, schedule: weekdays, ...(contacts_csv ? { contacts_csv } : {}) });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: string; contacts: { valid: number; invalid: { row: number; phone: string; reason: string }[] } };
  };
  const putCsv = (id: string, body: string) => fetch(`${out.app.origin}/api/campaigns/${id}/contacts`, { method: "PUT", headers: { cookie: owner.cookie, "content-type": "text/csv" }, body });
  const contactsOf = async (id: string, query = "") => (await send("GET", `/api/campaigns/${id}/contacts${query}`)).json() as CampaignContactPage;

  it("reads national numbers in the default country given, and says to choose one when none is", async () => {
    const { id } = await draft();
    const csv = "phone\n07700 900112\n(415) 555-0101\n";
    const national = await putCsv(id, csv);
    expect(await national.json()).toEqual({
      valid: 0,
      invalid: [
        { row: 1, phone: "07700 900112", reason: CAMPAIGN_TEXTS.invalidPhoneNational },
        { row: 2, phone: "(415) 555-0101", reason: CAMPAIGN_TEXTS.invalidPhoneNational },
      ],
    });
    const gb = await fetch(`${out.app.origin}/api/campaigns/${id}/contacts?default_country=GB`, { method: "PUT", headers: { cookie: owner.cookie, "content-type": "text/csv" }, body: "phone\n07700 900112\n" });
    expect(await gb.json()).toEqual({ valid: 1, invalid: [] });
    expect((await contactsOf(id)).data.map((c) => c.phone)).toEqual(["+447700900112"]);
    const unknown = await fetch(`${out.app.origin}/api/campaigns/${id}/contacts?default_country=XX`, { method: "PUT", headers: { cookie: owner.cookie, "content-type": "text/csv" }, body: csv });
    expect(unknown.status).toBe(400);
    const created = await send("POST", "/api/campaigns", { name: "US", assistant_id: assistantId, phone_number_id: numberId, max_concurrent_calls: 1, schedule: weekdays, contacts_csv: csv, default_country: "US" });
    expect((created.json() as { contacts: unknown }).contacts).toEqual({ valid: 1, invalid: [{ row: 1, phone: "07700 900112", reason: CAMPAIGN_TEXTS.invalidPhone }] });
  });

  it("leaves out premium-rate, satellite and the organisation's own numbers, saying which rule", async () => {
    const created = await draft("phone\n+19005550123\n+881612345678\n" + OURS + "\n+15550006001\n");
    expect(created.contacts).toEqual({
      valid: 1,
      invalid: [
        { row: 1, phone: "+19005550123", reason: DIAL_SAFETY_TEXTS.premiumRate("North American 900 numbers") },
        { row: 2, phone: "+881612345678", reason: DIAL_SAFETY_TEXTS.satellite("Global Mobile Satellite System, +881") },
        { row: 3, phone: OURS, reason: DIAL_SAFETY_TEXTS.ownNumber },
      ],
    });
  });

  it("refuses a stray quote, a NUL byte and more than 100 variable columns in the user's words, storing nothing", async () => {
    const { id } = await draft();
    for (const [csv, message] of [
      ['phone,name\n+15550006002,ok\n+15550006003,Ann "the" Smith\n', CAMPAIGN_TEXTS.unreadable(3, CAMPAIGN_TEXTS.quoteInField)],
      ["phone,name\n+15550006002,ok\n+15550006003,A\u0000n\n", CAMPAIGN_TEXTS.nulCharacter(2)],
      [`phone,${Array.from({ length: 101 }, (_, i) => `v${i}`).join(",")}\n+15550006002${",x".repeat(101)}\n`, CAMPAIGN_TEXTS.tooManyVariables(101)],
    ]) {
      const res = await putCsv(id, csv);
      expect(res.status, csv.slice(0, 40)).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe(message);
      expect((await contactsOf(id)).data).toEqual([]);
    }
    const before = ((await send("GET", "/api/campaigns")).json().data as Campaign[]).length;
    const wide = `phone,${Array.from({ length: 101 }, (_, i) => `v${i}`).join(",")}\n+15550006002${",x".repeat(101)}\n`;
    const refused = await send("POST", "/api/campaigns", { name: "Wide", assistant_id: assistantId, phone_number_id: numberId, max_concurrent_calls: 1, schedule: weekdays, contacts_csv: wide });
    expect([refused.statusCode, refused.json().error.message]).toEqual([400, CAMPAIGN_TEXTS.tooManyVariables(101)]);
    expect(((await send("GET", "/api/campaigns")).json().data as Campaign[]).length).toBe(before);
  });

  it("bounds a page of contacts in bytes as well as rows, and the next pages carry the rest", async () => {
    const { id } = await draft();
    // 30 contacts of 100 variables of 600 characters: about 1.8 MB, past one page's budget.
    const header = `phone,${Array.from({ length: 100 }, (_, i) => `v${i}`).join(",")}`;
    const rows = Array.from({ length: 30 }, (_, r) => `+1555000${7000 + r}${`,${"y".repeat(600)}`.repeat(100)}`);
    expect((await putCsv(id, [header, ...rows].join("\n"))).status).toBe(200);
    const first = await send("GET", `/api/campaigns/${id}/contacts?limit=200`);
    expect(first.body.length).toBeLessThan(1.1 * 1024 * 1024);
    const page = first.json() as CampaignContactPage;
    expect(page.data.length).toBeGreaterThan(0);
    expect(page.data.length).toBeLessThan(30);
    let seen = page.data.length;
    for (let cursor = page.next_cursor; cursor !== null; ) {
      const next = await contactsOf(id, `?limit=200&cursor=${cursor}`);
      seen += next.data.length;
      cursor = next.next_cursor;
    }
    expect(seen).toBe(30);
  });

  it("a contacts download needs a supervisor, as the calls export does; a viewer still reads the list", async () => {
    const { id } = await draft("phone,first_name\n+15550006101,Ann\n");
    const viewer = await joinAs(out.app.app, owner, "viewer", "Vera Viewer");
    const supervisor = await joinAs(out.app.app, owner, "supervisor", "Sam Supervisor");
    const asUser = (who: { cookie: string }, url: string) => out.app.app.inject({ method: "GET", url, headers: { cookie: who.cookie } });
    const refused = await asUser(viewer, `/api/campaigns/${id}/contacts.csv`);
    expect([refused.statusCode, refused.json().error]).toEqual([403, { code: "forbidden", message: PERMISSIONS.supervise.message }]);
    expect((await asUser(viewer, "/api/calls/export.csv")).statusCode).toBe(403);
    expect((await asUser(viewer, `/api/campaigns/${id}/contacts`)).statusCode).toBe(200);
    const downloaded = await asUser(supervisor, `/api/campaigns/${id}/contacts.csv`);
    expect(downloaded.statusCode).toBe(200);
    expect(downloaded.body).toContain("+15550006101");
  });
});
