import { eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAssistant, signUpCaller, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { insertPhoneNumber, phoneOwner, TEST_ACCOUNT_SID, TEST_AUTH_TOKEN, setUpDialOut } from "../../../../tests/fakes/twilio-app.ts";
import { signTwilio } from "../../../../tests/fakes/twilio-caller.ts";
import { DIAL_SAFETY_TEXTS } from "../../../shared/dial-safety.ts";
import { OUTBOUND_ENDED, OUTBOUND_TEXTS } from "../../../shared/outbound.ts";
import { IDEMPOTENCY_MESSAGES } from "../../../shared/idempotency.ts";
import { servedDocument, testClient } from "../../../../tests/api/client.ts";
import type { SwitchboardClient } from "../../../client/api-client.ts";
import { CALL_MESSAGES, callStatus } from "../../../shared/call-records.ts";
import { until } from "../../../../tests/until.ts";
import { calls } from "../../db/schema.ts";

/**
 * One outbound call end to end through real sockets: POST /api/calls/outbound, the fake Twilio
 * REST API receiving Calls.create and playing the callee (signed callbacks, the answered call's
 * media stream, a machine), the fake OpenAI Realtime server, the record in the database.
 */

const OURS = "+15550100";
const PERSON = "+442071234500";
const out = setUpDialOut({ apiKey: "sk-outbound-test", ours: OURS });
let owner: Caller;
let assistantId: string;
let numberId: string;

beforeAll(async () => {
  owner = await phoneOwner(out.app, out.fake.apiKey);
  assistantId = (
    await createAssistant(out.app.app, owner, {
      instructions: "You call {{first_name}} about order {{ order }}. Direction: {{direction}}. Called: {{called_number}}. From: {{caller_number}}. Missing: [{{nothing}}]",
      first_message: "Hello {{first_name}}, this is Ava.",
      timezone: "Europe/London",
    })
  ).id;
  numberId = await insertPhoneNumber(out.app, owner, OURS, null);
});
beforeEach(() => {
  out.fake.script = {};
  out.farEnd.setDefault("answer");
});

const post = (who: Caller, body: unknown) => out.app.app.inject({ method: "POST", url: "/api/calls/outbound", headers: { cookie: who.cookie }, payload: body as object });
const get = (url: string, who: Caller = owner) => out.app.app.inject({ method: "GET", url, headers: { cookie: who.cookie } });
const dial = (body: Record<string, unknown> = {}) => post(owner, { assistant_id: assistantId, phone_number_id: numberId, to: PERSON, ...body });

async function ended(id: string, timeoutMs = 8000) {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await new Promise((r) => setTimeout(r, 25))) {
    const [row] = await out.app.db.select().from(calls).where(eq(calls.id, id));
    if (row?.endTime && row.cost !== null) return row;
  }
  throw new Error(`call ${id} did not end`);
}

describe("POST /api/calls/outbound", () => {
  it("dials with the user's Twilio account; answered, the call runs like an inbound one with the variables filled, and is recorded as outbound", async () => {
    const index = out.fake.connections.length;
    const res = await dial({ variables: { first_name: "Ann", order: 42 } });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json();
    expect(body).toEqual({ id: expect.any(String), status: "queued", twilio_call_sid: expect.stringMatching(/^CA/), carrier: "twilio" });

    const created = out.rest.requests.find((r) => r.operation === "callCreate")!;
    expect(created.username).toBe(TEST_ACCOUNT_SID);
    expect(created.form).toMatchObject({ To: PERSON, From: OURS, Method: "POST", StatusCallbackMethod: "POST" });
    expect(created.form.Url).toBe(`${out.app.origin}/telephony/twilio/voice?call=${body.id}`);
    expect(created.form.StatusCallback).toBe(`${out.app.origin}/telephony/twilio/status?call=${body.id}`);
    expect(created.form.MachineDetection).toBeUndefined();
    expect(out.rest.call(body.twilio_call_sid)!.events).toEqual(["initiated", "ringing", "answered", "completed"]);

    const phone = await out.farEnd.answered(body.twilio_call_sid);
    const conn = await out.fake.connection(index);
    const update = await conn.waitFor("session.update");
    const instructions = (update["session"] as { instructions: string }).instructions;
    expect(instructions).toContain(`You call Ann about order 42. Direction: outbound. Called: ${PERSON}. From: ${OURS}. Missing: []`);
    // The assistant speaks first: the first message, filled.
    const greeting = await conn.waitFor("response.create");
    expect(JSON.stringify(greeting)).toContain("Hello Ann, this is Ava.");
    await phone.until(() => phone.receivedBytes > 0, "the greeting's audio");

    await out.farEnd.hangUp(body.twilio_call_sid);
    const row = await ended(body.id);
    expect(row).toMatchObject({ direction: "outbound", callerNumber: OURS, calledNumber: PERSON, providerCallSid: body.twilio_call_sid, carrier: "twilio", sipCallId: null, phoneNumberId: numberId });
    expect(row.variables).toMatchObject({ first_name: "Ann", order: "42", direction: "outbound", caller_number: OURS, called_number: PERSON });
    expect(row.variables!["now"]).toMatch(/\(Europe\/London\)$/);
    expect(row.cost).toBeGreaterThan(0);

    const record = (await get(`/api/calls/${body.id}`)).json();
    expect(record).toMatchObject({ direction: "outbound", customer: PERSON, variables: expect.objectContaining({ first_name: "Ann" }) });
    await out.farEnd.calls.get(body.twilio_call_sid)!.ended;
    expect((await get(`/api/calls/${body.id}`)).json().twilio_status).toBe("completed");
    const outboundIds = (await get("/api/calls?direction=outbound")).json().data.map((c: { id: string }) => c.id);
    const inboundIds = (await get("/api/calls?direction=inbound")).json().data.map((c: { id: string }) => c.id);
    expect(outboundIds).toContain(body.id);
    expect(inboundIds).not.toContain(body.id);
    expect((await get("/api/calls?direction=sideways")).statusCode).toBe(400);
  });

  it.each([
    ["no-answer", OUTBOUND_ENDED.noAnswer, "no-answer"],
    ["busy", OUTBOUND_ENDED.busy, "busy"],
    ["failed", OUTBOUND_ENDED.failed("SIP 404"), "failed"],
  ] as const)("a callee who does not answer (%s) ends the record with a readable reason and no cost", async (outcome, reason, status) => {
    out.farEnd.setDefault(outcome);
    const res = await dial();
    expect(res.statusCode, res.body).toBe(201);
    const row = await ended(res.json().id);
    expect(row).toMatchObject({ endedReason: reason, cost: 0, providerStatus: status, direction: "outbound" });
    // It rang but never connected: no talk time, in the record and in what the page reads.
    expect(row.endTime!.getTime()).toBe(row.startTime.getTime());
    const summary = (await get(`/api/calls/${row.id}`)).json();
    expect(summary).toMatchObject({ ended_reason: reason, duration_ms: null });
    expect(callStatus(summary).label).toBe(reason);
  });

  it("a machine answering: the assistant's message is left after the beep, then the call hangs up as 'Voicemail'", async () => {
    const vm = await createAssistant(out.app.app, owner, { first_message: null, voicemail: { action: "leave_message", message: "Hi {{first_name}}, please call us back." } });
    out.farEnd.setDefault("machine");
    const res = await post(owner, { assistant_id: vm.id, phone_number_id: numberId, to: PERSON, variables: { first_name: "Bo" } });
    expect(res.statusCode, res.body).toBe(201);
    const { id, twilio_call_sid: sid } = res.json();
    const form = out.rest.requests.filter((r) => r.operation === "callCreate").at(-1)!.form;
    expect(form).toMatchObject({ MachineDetection: "DetectMessageEnd", AsyncAmd: "true", AsyncAmdStatusCallback: `${out.app.origin}/telephony/twilio/amd?call=${id}` });
    const call = out.farEnd.calls.get(sid)!;
    await call.ended;
    expect(call.said).toEqual(["Hi Bo, please call us back."]);
    expect(await ended(id)).toMatchObject({ endedReason: OUTBOUND_ENDED.voicemail, answeredBy: "machine_end_beep" });
  });

  it("a machine answering with 'hang up': the call is ended at Twilio and recorded as 'Voicemail'", async () => {
    const vm = await createAssistant(out.app.app, owner, { first_message: null, voicemail: { action: "hang_up" } });
    out.farEnd.setDefault("machine");
    const res = await post(owner, { assistant_id: vm.id, phone_number_id: numberId, to: PERSON });
    const { id, twilio_call_sid: sid } = res.json();
    await out.farEnd.calls.get(sid)!.ended;
    expect(out.farEnd.calls.get(sid)!.said).toEqual([]);
    expect(out.rest.requests.some((r) => r.operation === "callUpdate" && r.path.includes(sid) && r.form.Status === "completed")).toBe(true);
    expect(await ended(id)).toMatchObject({ endedReason: OUTBOUND_ENDED.voicemail });
  });

  it("a person answering when voicemail handling is on talks to the assistant as usual", async () => {
    const vm = await createAssistant(out.app.app, owner, { voicemail: { action: "hang_up" } });
    const res = await post(owner, { assistant_id: vm.id, phone_number_id: numberId, to: PERSON });
    const { id, twilio_call_sid: sid } = res.json();
    await out.farEnd.answered(sid);
    const heard = () => out.farEnd.calls.get(sid)!.callbacks.some((c) => c.params["AnsweredBy"] === "human" && c.status === 204);
    for (let waited = 0; !heard() && waited < 8000; waited += 25) await new Promise((r) => setTimeout(r, 25));
    expect(heard()).toBe(true);
    await out.farEnd.hangUp(sid);
    const row = await ended(id);
    expect(row.endedReason).not.toBe(OUTBOUND_ENDED.voicemail);
    expect(row.answeredBy).toBe("human");
  });

  it("refuses, dialling nothing: a number not in E.164, one on the do-not-call list, another user's assistant or number, missing Twilio credentials", async () => {
    const before = out.rest.requests.filter((r) => r.operation === "callCreate").length;
    const bad = await dial({ to: "020 7123 4500" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.message).toContain(OUTBOUND_TEXTS.toInvalid);

    expect((await out.app.app.inject({ method: "POST", url: "/api/dnc", headers: { cookie: owner.cookie }, payload: { phone: "+442071234599" } })).statusCode).toBe(201);
    const dnc = await dial({ to: "+44 20 7123 4599" });
    expect(dnc.statusCode).toBe(409);
    expect(dnc.json().error).toEqual({ code: "do_not_call", message: OUTBOUND_TEXTS.doNotCall("+442071234599") });

    const other = await phoneOwner(out.app, out.fake.apiKey);
    const theirAssistant = (await createAssistant(out.app.app, other)).id;
    const theirNumber = await insertPhoneNumber(out.app, other, "+15550199", null);
    expect((await dial({ assistant_id: theirAssistant })).statusCode).toBe(404);
    expect((await dial({ phone_number_id: theirNumber })).statusCode).toBe(404);

    const noTwilio = await signUpCaller(out.app.app, out.fake.apiKey);
    const a = (await createAssistant(out.app.app, noTwilio)).id;
    const n = await insertPhoneNumber(out.app, noTwilio, "+15550198", null);
    const refused = await post(noTwilio, { assistant_id: a, phone_number_id: n, to: PERSON });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.message).toBe(OUTBOUND_TEXTS.noTwilio);

    expect(out.rest.requests.filter((r) => r.operation === "callCreate").length).toBe(before);
  });

  it("refuses premium-rate and satellite numbers and the organisation's own, saying which rule, unless an admin allows them", async () => {
    const before = out.rest.requests.filter((r) => r.operation === "callCreate").length;
    const cases: [string, string][] = [
      ["+19005550123", DIAL_SAFETY_TEXTS.premiumRate("North American 900 numbers")],
      ["+881612345678", DIAL_SAFETY_TEXTS.satellite("Global Mobile Satellite System, +881")],
      ["+882161234567", DIAL_SAFETY_TEXTS.satellite("International Networks, +882")],
      [OURS, DIAL_SAFETY_TEXTS.ownNumber],
    ];
    for (const [to, reason] of cases) {
      const res = await dial({ to });
      expect(res.statusCode, to).toBe(409);
      expect(res.json().error).toEqual({ code: "destination_refused", message: DIAL_SAFETY_TEXTS.refused(to, reason) });
    }
    expect(out.rest.requests.filter((r) => r.operation === "callCreate").length).toBe(before);
    expect(await out.app.db.select({ id: calls.id }).from(calls).where(eq(calls.calledNumber, "+19005550123"))).toEqual([]);

    const put = (allowed: unknown) => out.app.app.inject({ method: "PUT", url: "/api/settings/dial-allow-list", headers: { cookie: owner.cookie }, payload: { allowed } });
    expect((await put(["1900"])).json().error.message).toBe(DIAL_SAFETY_TEXTS.entryInvalid);
    expect((await put(["+1 900"])).json()).toEqual({ allowed: ["+1900"] });
    expect((await get("/api/settings/dial-allow-list")).json()).toEqual({ allowed: ["+1900"] });
    const allowed = await dial({ to: "+19005550123" });
    expect(allowed.statusCode, allowed.body).toBe(201);
    // Only what the list names: satellite numbers are still refused.
    expect((await dial({ to: "+881612345678" })).statusCode).toBe(409);
    await out.farEnd.answered(allowed.json().twilio_call_sid);
    await out.farEnd.hangUp(allowed.json().twilio_call_sid);
    await ended(allowed.json().id);
    expect((await put([])).json()).toEqual({ allowed: [] });
  });

  it("refuses a call over the account's max_concurrent_calls (Settings, default 10)", async () => {
    expect((await get("/api/settings/calls")).json()).toEqual({ max_concurrent_calls: 10 });
    const put = (v: unknown) => out.app.app.inject({ method: "PUT", url: "/api/settings/calls", headers: { cookie: owner.cookie }, payload: { max_concurrent_calls: v } });
    expect((await put(0)).statusCode).toBe(400);
    expect((await put(1)).json()).toEqual({ max_concurrent_calls: 1 });
    const first = await dial();
    expect(first.statusCode).toBe(201);
    await out.farEnd.answered(first.json().twilio_call_sid);
    const second = await dial();
    expect(second.statusCode).toBe(429);
    expect(second.json().error.message).toBe(OUTBOUND_TEXTS.limit(1));
    await out.farEnd.hangUp(first.json().twilio_call_sid);
    await ended(first.json().id);
    expect((await dial()).statusCode).toBe(201);
    await put(10);
  });

  it("Twilio refusing the call answers 400 with Twilio's words and keeps no record", async () => {
    out.rest.failNext("callCreate", { status: 400, code: 21215, message: "Account not authorized to call +442071234500." });
    const res = await dial();
    expect(res.statusCode).toBe(400);
    expect(res.json().error.message).toBe(OUTBOUND_TEXTS.twilioRefused("Account not authorized to call +442071234500."));
    const rows = await out.app.db.select({ id: calls.id }).from(calls).where(eq(calls.providerCallSid, ""));
    expect(rows).toHaveLength(0);
  });

  it("callbacks must be signed with the owner's auth token", async () => {
    out.farEnd.setDefault("no-answer");
    const res = await dial();
    const { id } = res.json();
    await ended(id);
    const url = `${out.app.origin}/telephony/twilio/status?call=${id}`;
    const params = { CallSid: res.json().twilio_call_sid, CallStatus: "completed" };
    const send = (signature: string) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": signature }, body: new URLSearchParams(params).toString() });
    expect((await send(signTwilio("wrong-token", url, params))).status).toBe(403);
    expect((await send(signTwilio(TEST_AUTH_TOKEN, url, params))).status).toBe(204);
  });
});

describe("POST /api/calls/:id/cancel", () => {
  const cancel = (id: string, who: Caller = owner) => out.app.app.inject({ method: "POST", url: `/api/calls/${id}/cancel`, headers: { cookie: who.cookie } });
  const record = async (id: string) => (await get(`/api/calls/${id}`)).json();

  it("stops a ringing call at Twilio: it shows Ringing with no duration, then Cancelled with no talk time; a second cancel and another organisation are refused", async () => {
    const to = "+442071234561";
    out.farEnd.script(to, "ring");
    const res = await dial({ to });
    expect(res.statusCode, res.body).toBe(201);
    const { id, twilio_call_sid: sid } = res.json();
    const ringing = await until("the call to ring", () => record(id), (r) => r.twilio_status === "ringing");
    expect(ringing).toMatchObject({ end_time: null, duration_ms: null, status: "in_progress" });
    expect(callStatus(ringing).label).toBe("Ringing");

    const other = await phoneOwner(out.app, out.fake.apiKey);
    const theirs = await cancel(id, other);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().error.message).toBe(CALL_MESSAGES.notFound);
    expect(out.farEnd.calls.get(sid)!.status).toBe("ringing");

    const cancelled = await cancel(id);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toEqual({ id, twilio_status: "canceled", ended_reason: OUTBOUND_ENDED.cancelled });
    // Through the carrier: Twilio was told, and the phone stopped ringing.
    await out.farEnd.calls.get(sid)!.ended;
    expect(out.farEnd.calls.get(sid)!.status).toBe("canceled");
    const after = await until("Twilio's last word on the call", () => record(id), (r) => r.twilio_status === "canceled");
    expect(after).toMatchObject({ ended_reason: OUTBOUND_ENDED.cancelled, duration_ms: null });
    expect(callStatus(after).label).toBe(OUTBOUND_ENDED.cancelled);

    // Who dialled and who stopped it: the compliance record.
    const audit = (await get("/api/audit-log?limit=50")).json().data as Array<{ action: string; target_id: string | null; target_name: string | null }>;
    expect(audit.find((e) => e.action === "call.placed" && e.target_id === id)).toMatchObject({ target_name: to });
    expect(audit.find((e) => e.action === "call.cancelled" && e.target_id === id)).toBeDefined();

    const again = await cancel(id);
    expect(again.statusCode).toBe(409);
    expect(again.json().error).toEqual({ code: "call_not_cancellable", message: OUTBOUND_TEXTS.cancelEnded });
    expect((await cancel("not-a-call")).statusCode).toBe(404);
  });

  it("says Cancelled when Twilio reports the cancelled call ended before it answers the cancel", async () => {
    const to = "+442071234562";
    out.farEnd.script(to, "ring");
    const { id, twilio_call_sid: sid } = (await dial({ to })).json();
    await until("the call to ring", () => record(id), (r) => r.twilio_status === "ringing");
    out.rest.duringNext("callUpdate", () => out.farEnd.end(sid, "canceled"));
    const cancelled = await cancel(id);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect(cancelled.json()).toEqual({ id, twilio_status: "canceled", ended_reason: OUTBOUND_ENDED.cancelled });
    expect(await record(id)).toMatchObject({ twilio_status: "canceled", ended_reason: OUTBOUND_ENDED.cancelled, duration_ms: null });
  });

  it("refuses a call already answered with 409 and says why; the call goes on", async () => {
    const res = await dial();
    const { id, twilio_call_sid: sid } = res.json();
    await out.farEnd.answered(sid);
    await until("the call to be answered", () => record(id), (r) => r.twilio_status === "in-progress");
    const refused = await cancel(id);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toEqual({ code: "call_not_cancellable", message: OUTBOUND_TEXTS.cancelAnswered });
    expect(out.farEnd.calls.get(sid)!.status).toBe("in-progress");
    await out.farEnd.hangUp(sid);
    await ended(id);
  });
});

describe("do-not-call list", () => {
  it("adds one or many numbers (normalised, no repeats), lists them newest first, removes one; other users see none of them", async () => {
    const who = await signUpCaller(out.app.app);
    const send = (method: "POST" | "DELETE", url: string, payload?: object) => out.app.app.inject({ method, url, headers: { cookie: who.cookie }, ...(payload ? { payload } : {}) });
    expect((await send("POST", "/api/dnc", { phone: "+1 (415) 555-0101" })).json()).toEqual({ added: 1 });
    expect((await send("POST", "/api/dnc", { phones: ["+14155550101", "+14155550102", "+14155550102"] })).json()).toEqual({ added: 1 });
    expect((await send("POST", "/api/dnc", { phones: ["12"] })).statusCode).toBe(400);
    const list = (await get("/api/dnc", who)).json();
    expect(list.total).toBe(2);
    expect(list.data.map((e: { phone: string }) => e.phone).sort()).toEqual(["+14155550101", "+14155550102"]);
    expect((await get("/api/dnc", owner)).json().data.map((e: { phone: string }) => e.phone)).not.toContain("+14155550101");
    expect((await send("DELETE", `/api/dnc/${encodeURIComponent("+14155550101")}`)).statusCode).toBe(204);
    expect((await send("DELETE", `/api/dnc/${encodeURIComponent("+14155550101")}`)).statusCode).toBe(404);
    expect((await get("/api/dnc", who)).json().total).toBe(1);
  });

  it("pages with next_cursor until the last page, which says null", async () => {
    const who = await signUpCaller(out.app.app);
    const post = await out.app.app.inject({ method: "POST", url: "/api/dnc", headers: { cookie: who.cookie }, payload: { phones: ["+14155550111", "+14155550112", "+14155550113"] } });
    expect(post.statusCode).toBe(201);
    const first = (await get("/api/dnc?limit=2", who)).json();
    expect([first.data.length, first.total, typeof first.next_cursor]).toEqual([2, 3, "string"]);
    const second = (await get(`/api/dnc?limit=2&cursor=${encodeURIComponent(first.next_cursor)}`, who)).json();
    expect([second.data.length, second.next_cursor]).toEqual([1, null]);
    const phones = [...first.data, ...second.data].map((e: { phone: string }) => e.phone).sort();
    expect(phones).toEqual(["+14155550111", "+14155550112", "+14155550113"]);
  });
});

describe("assistant variables", () => {
  it("lists the placeholders found in the instructions and first message, and keeps the time zone and voicemail settings", async () => {
    const res = await out.app.app.inject({ method: "GET", url: `/api/assistants/${assistantId}`, headers: { cookie: owner.cookie } });
    expect(res.json()).toMatchObject({ variables: ["first_name", "order", "direction", "called_number", "caller_number", "nothing"], timezone: "Europe/London", voicemail: null, allow_do_not_call: false });
    const bad = await out.app.app.inject({ method: "POST", url: "/api/assistants", headers: { cookie: owner.cookie }, payload: { name: "X", timezone: "Mars/Olympus", voicemail: { action: "leave_message" } } });
    expect(bad.statusCode).toBe(400);
  });
});

describe("the do-not-call function", { timeout: 60_000 }, () => {
  it("with the assistant's switch on, adds the person on the line when they ask not to be called again", async () => {
    const dncAssistant = await createAssistant(out.app.app, owner, { first_message: null, allow_do_not_call: true });
    const to = "+442071234577";
    out.fake.script = { speechMs: 600, userSays: ["Please never call me again."], replies: [{ say: "Understood, you will not be called again.", audioMs: 400, toolCalls: [{ name: "add_to_do_not_call", arguments: {} }] }] };
    const index = out.fake.connections.length;
    const res = await post(owner, { assistant_id: dncAssistant.id, phone_number_id: numberId, to });
    const phone = await out.farEnd.answered(res.json().twilio_call_sid);
    const conn = await out.fake.connection(index);
    const update = await conn.waitFor("session.update");
    expect(JSON.stringify(update)).toContain("add_to_do_not_call");
    await phone.speak(Buffer.alloc(8000, 0x10), 900);
    for (let waited = 0; waited < 10_000; waited += 100) {
      const listed = (await get("/api/dnc")).json().data.map((e: { phone: string }) => e.phone);
      if (listed.includes(to)) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect((await get("/api/dnc")).json().data.map((e: { phone: string }) => e.phone)).toContain(to);
    await out.farEnd.hangUp(res.json().twilio_call_sid);
    await ended(res.json().id);
  });
});

describe("POST /api/calls/outbound with an Idempotency-Key, through the typed client", () => {
  let api: SwitchboardClient;
  beforeAll(async () => {
    const key = (await out.app.app.inject({ method: "POST", url: "/api/api-keys", headers: { cookie: owner.cookie }, payload: { name: "Dialler" } })).json().key as string;
    api = testClient(out.app.app, await servedDocument(out.app.app), key, out.app.origin);
  });
  const dialWithKey = async (key: string, to = PERSON) => {
    const { response, data, error } = await api.POST("/api/calls/outbound", {
      params: { header: { "Idempotency-Key": key } },
      body: { assistant_id: assistantId, phone_number_id: numberId, to },
    });
    return { status: response.status, replayed: response.headers.get("idempotent-replayed"), data, error: error?.error };
  };
  const placed = () => out.rest.requests.filter((r) => r.operation === "callCreate").length;

  it("places one call however often it is retried: a retry while the first is being handled is told to wait, later ones get the first answer", async () => {
    out.farEnd.setDefault("busy");
    const key = `retry-${Date.now()}`;
    const before = placed();
    let whileHandled: Awaited<ReturnType<typeof dialWithKey>> | null = null;
    out.rest.duringNext("callCreate", async () => {
      whileHandled = await dialWithKey(key);
    });
    const first = await dialWithKey(key);
    expect(first.status, JSON.stringify(first.error)).toBe(201);
    expect(whileHandled!.status).toBe(409);
    expect(whileHandled!.error).toEqual({ code: "idempotency_key_in_use", message: IDEMPOTENCY_MESSAGES.inProgress });
    await ended(first.data!.id);

    const retry = await dialWithKey(key);
    expect(retry.status).toBe(201);
    expect(retry.data).toEqual(first.data);
    expect(retry.replayed).toBe("true");
    expect(placed()).toBe(before + 1);

    // The same key for another call is refused, and places nothing.
    const other = await dialWithKey(key, "+442071234599");
    expect(other.status).toBe(422);
    expect(other.error).toEqual({ code: "idempotency_key_reused", message: IDEMPOTENCY_MESSAGES.mismatch });
    expect(placed()).toBe(before + 1);

    // A new key is a new call.
    const next = await dialWithKey(`${key}-2`);
    expect(next.status, JSON.stringify(next.error)).toBe(201);
    expect(next.data!.id).not.toBe(first.data!.id);
    await ended(next.data!.id);
    expect(placed()).toBe(before + 2);
  });
});
