import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { errorOf, useTestApp } from "../../../../tests/harness.ts";
import { insertPhoneNumber, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import type { SignedUp } from "../../../../tests/sign-up.ts";
import { PERMISSIONS, type Role } from "../../../shared/roles.ts";
import { AUDIT_CSV_COLUMNS, type AuditEntry, type AuditPage } from "../../../shared/audit.ts";
import { auditLog, callRetention, calls } from "../../db/schema.ts";
import { recordLiveAction } from "./audit-hook.ts";
import { createAuditRepo } from "./audit.repo.ts";
import type { AuditRecord, AuditService } from "./audit.service.ts";

const file = useTestApp({ users: ["Ada", "Sam", "Bea", "Vic", "Rob", "Eve"] });

/** Ada invites `who` into her organisation with `role`; they accept (their session moves there). */
async function join(who: SignedUp, role: Role) {
  const invited = await file.as(file.users.Ada).post("/api/team/invitations", { email: who.email, role });
  expect(invited.statusCode, invited.body).toBe(201);
  const token = new URL(invited.json().url).searchParams.get("token");
  const accepted = await file.as(who).post("/api/team/invitations/accept", { token });
  expect(accepted.statusCode, accepted.body).toBe(200);
}

async function log(who: SignedUp, query = ""): Promise<AuditEntry[]> {
  const res = await file.as(who).get(`/api/audit-log${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as AuditPage).data;
}

const ada = () => file.users.Ada;
const org = () => ada().organizationId;

beforeAll(async () => {
  await join(file.users.Sam, "supervisor");
  await join(file.users.Bea, "builder");
  await join(file.users.Vic, "viewer");
  await join(file.users.Rob, "builder");
});

describe("the audit log records", () => {
  it("campaigns created and cancelled, do-not-call changes and test scenarios, by whom", async () => {
    const assistant = (await file.as(ada()).post("/api/assistants", { name: "Dialler Ava" })).json<{ id: string }>();
    const numberId = await insertPhoneNumber(file as unknown as PhoneApp, ada(), "+15550177", assistant.id);
    const created = await file.as(ada()).post("/api/campaigns", {
      name: "Renewals",
      assistant_id: assistant.id,
      phone_number_id: numberId,
      contacts_csv: "phone\n+14155550123\n",
      max_concurrent_calls: 1,
      schedule: { timezone: "UTC", windows: [{ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" }] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    expect((await file.as(ada()).post(`/api/campaigns/${id}/cancel`, {})).statusCode).toBe(200);
    expect((await file.as(ada()).post("/api/dnc", { phones: ["+14155550199"] })).statusCode).toBe(201);
    expect((await file.as(ada()).delete("/api/dnc/+14155550199")).statusCode).toBe(204);
    const scenario = await file.as(ada()).post(`/api/assistants/${assistant.id}/scenarios`, { name: "Asks for hours", persona: "A customer", goal: "Learn the hours", rubric: "Gives the hours" });
    expect(scenario.statusCode, scenario.body).toBe(201);
    const entries = await log(ada());
    const of = (action: string) => entries.find((e) => e.action === action);
    expect(of("campaign.created")).toMatchObject({ target_type: "campaign", target_id: id, target_name: "Renewals", details: { contacts: 1 } });
    expect(of("campaign.cancelled")).toMatchObject({ target_type: "campaign", target_id: id, target_name: "Renewals", action_label: "Campaign cancelled" });
    expect(of("do_not_call.added")).toMatchObject({ details: { phones: ["+14155550199"] } });
    expect(of("do_not_call.removed")).toMatchObject({ target_name: "+14155550199" });
    expect(of("scenario.created")).toMatchObject({ target_type: "scenario", target_name: "Asks for hours" });
  });

  it("a webhook's test event and a delivery resent, naming the endpoint and the delivery", async () => {
    const endpoint = await file.as(ada()).post("/api/webhooks", { url: "https://hooks.example.com/audit", events: ["call.ended"] });
    expect(endpoint.statusCode, endpoint.body).toBe(201);
    const webhookId = endpoint.json<{ id: string }>().id;
    const tested = await file.as(ada()).post(`/api/webhooks/${webhookId}/test`);
    expect(tested.statusCode, tested.body).toBe(202);
    const deliveryId = tested.json<{ id: string }>().id;
    expect((await file.as(ada()).post(`/api/webhooks/deliveries/${deliveryId}/resend`)).statusCode).toBe(202);
    const entries = await log(ada());
    expect(entries.find((e) => e.action === "webhook.tested")).toMatchObject({ target_type: "webhook", target_id: webhookId, action_label: "Webhook test event sent", actor_name: "Ada" });
    expect(entries.find((e) => e.action === "webhook.resent")).toMatchObject({ target_type: "webhook_delivery", target_id: deliveryId, action_label: "Webhook delivery resent" });
  });

  it("who created an assistant, from which address, with its id and name; a deletion keeps the name", async () => {
    const created = await file.as(ada()).post("/api/assistants", { name: "Ava" });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    const [entry] = await log(ada(), "?action=assistant.created");
    expect(entry).toMatchObject({
      actor_user_id: ada().userId,
      actor_name: "Ada",
      via: "session",
      action: "assistant.created",
      action_label: "Assistant created",
      target_type: "assistant",
      target_id: id,
      target_name: "Ava",
      ip: "127.0.0.1",
    });

    expect((await file.as(ada()).delete(`/api/assistants/${id}`)).statusCode).toBe(204);
    const [deleted] = await log(ada(), "?action=assistant.deleted");
    expect(deleted).toMatchObject({ target_id: id, target_name: "Ava" });
  });

  it("a credential change without its value", async () => {
    const saved = await file.as(ada()).put("/api/credentials/twilio_account_sid", { value: "AC0123456789abcdef0123456789abcdef" });
    expect(saved.statusCode, saved.body).toBe(200);
    const [entry] = await log(ada(), "?action=credentials.changed");
    expect(entry).toMatchObject({ target_type: "credential", target_id: "twilio_account_sid", actor_name: "Ada" });
    const rows = await file.db.select().from(auditLog).where(eq(auditLog.organizationId, org()));
    expect(JSON.stringify(rows)).not.toContain("AC0123456789abcdef");
  });

  it("a member's role change, naming the member and the new role; the invitations and joins before it", async () => {
    expect((await file.as(ada()).patch(`/api/team/members/${file.users.Rob.userId}`, { role: "viewer" })).statusCode).toBe(204);
    const [entry] = await log(ada(), "?action=member.role_changed");
    expect(entry).toMatchObject({ target_type: "member", target_id: file.users.Rob.userId, target_name: "Rob", details: { role: "viewer" } });

    const joined = await log(ada(), "?action=member.joined");
    expect(joined.map((e) => e.actor_name).sort()).toEqual(["Bea", "Rob", "Sam", "Vic"]);
    const invited = await log(ada(), "?action=member.invited");
    expect(invited.find((e) => e.target_name === file.users.Sam.email)?.details).toEqual({ role: "supervisor" });
  });

  it("a recording played, by a supervisor", async () => {
    const [call] = await file.db
      .insert(calls)
      .values({ organizationId: org(), startTime: new Date(), endTime: new Date(), recording: "recordings/x.wav", logs: { isTest: true, transcript: [], toolsUsed: [] } })
      .returning();
    const res = await file.as(file.users.Sam).get(`/api/calls/${call!.id}/recording`);
    expect(res.statusCode).toBe(302);
    const [entry] = await log(ada(), "?action=recording.played");
    expect(entry).toMatchObject({ actor_user_id: file.users.Sam.userId, actor_name: "Sam", target_type: "call", target_id: call!.id });
  });

  it("what an API key did, naming the key by its id and its creator", async () => {
    const made = (await file.as(ada()).post("/api/api-keys", { name: "CRM" })).json() as { key: string; id: string };
    const res = await file.app.inject({ method: "POST", url: "/api/assistants", headers: { authorization: `Bearer ${made.key}` }, payload: { name: "Keyed" } });
    expect(res.statusCode).toBe(201);
    const [entry] = await log(ada(), "?action=assistant.created");
    expect(entry).toMatchObject({ actor_user_id: ada().userId, actor_name: "Ada (API key “CRM”)", via: "api_key", actor_api_key_id: made.id, target_name: "Keyed" });
    // The creator's filter finds what their keys did; the CSV names the key too.
    expect((await log(ada(), `?actor=${ada().userId}&action=assistant.created`)).map((e) => e.actor_api_key_id)).toContain(made.id);
    const csv = (await file.as(ada()).get("/api/audit-log.csv?action=assistant.created")).body;
    expect(csv.split("\r\n").find((l) => l.includes("Keyed"))!.endsWith(`,${made.id}`)).toBe(true);
    const [created] = await log(ada(), "?action=api_key.created");
    expect(created).toMatchObject({ target_name: "CRM", actor_name: "Ada" });
  });

  it("sign-ins, in every organisation the person belongs to", async () => {
    const sam = file.users.Sam;
    const res = await file.app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: sam.email, password: sam.password } });
    expect(res.statusCode).toBe(200);
    const rows = await file.db.select().from(auditLog).where(eq(auditLog.actorUserId, sam.userId));
    const signIns = rows.filter((r) => r.action === "auth.signed_in");
    expect(new Set(signIns.map((r) => r.organizationId))).toEqual(new Set([org(), sam.organizationId]));
    const failed = await file.app.inject({ method: "POST", url: "/api/auth/sign-in/email", payload: { email: sam.email, password: "wrong-password-123" } });
    expect(failed.statusCode).toBe(401);
    const after = await file.db.select().from(auditLog).where(eq(auditLog.actorUserId, sam.userId));
    expect(after.filter((r) => r.action === "auth.signed_in")).toHaveLength(signIns.length);
  });

  it("live-board actions through the watch socket's listener (stopping to listen and speaking are not kept)", async () => {
    const recorded: AuditRecord[] = [];
    const audit = { record: async (e: AuditRecord) => void recorded.push(e) } as unknown as AuditService;
    const req = { actor: { userId: "u1", organizationId: "o1", role: "supervisor", via: "session" }, user: { id: "u1", name: "Sam", email: "s@x" }, ip: "10.0.0.1" };
    const acted = recordLiveAction(audit);
    for (const action of ["listen", "stop_listening", "guide", "take_over", "spoke", "hand_back", "end_call"] as const) acted(req as never, "call-1", action);
    expect(recorded.map((r) => r.action)).toEqual(["live.listened", "live.guided", "live.took_over", "live.handed_back", "live.ended"]);
    expect(recorded[0]).toMatchObject({ organizationId: "o1", actor: { userId: "u1", name: "Sam" }, target: { type: "call", id: "call-1" }, ip: "10.0.0.1" });
  });

  it("nothing for a failed request", async () => {
    const before = (await file.db.select().from(auditLog).where(eq(auditLog.organizationId, org()))).length;
    expect((await file.as(ada()).post("/api/assistants", { name: "" })).statusCode).toBe(400);
    expect((await file.as(ada()).delete("/api/assistants/00000000-0000-4000-8000-000000000000")).statusCode).toBe(404);
    expect((await file.as(file.users.Vic).post("/api/assistants", { name: "Nope" })).statusCode).toBe(403);
    expect((await file.as(ada()).patch(`/api/team/members/${file.users.Eve.userId}`, { role: "viewer" })).statusCode).toBe(404);
    const after = (await file.db.select().from(auditLog).where(eq(auditLog.organizationId, org()))).length;
    expect(after).toBe(before);
  });
});

describe("reading the audit log", () => {
  it("filters by person, action and date, in pages newest first", async () => {
    for (const name of ["B1", "B2", "B3"]) expect((await file.as(file.users.Bea).post("/api/assistants", { name })).statusCode).toBe(201);
    const bea = await log(ada(), `?actor=${file.users.Bea.userId}&action=assistant.created`);
    expect(bea.map((e) => e.target_name)).toEqual(["B3", "B2", "B1"]);
    expect(new Set((await log(ada(), `?actor=${file.users.Bea.userId}`)).map((e) => e.actor_name))).toEqual(new Set(["Bea"]));

    const today = new Date().toISOString().slice(0, 10);
    expect((await log(ada(), `?action=assistant.created&from=${today}&to=${today}`)).length).toBeGreaterThanOrEqual(3);
    expect(await log(ada(), "?to=2020-01-01")).toEqual([]);
    expect(await log(ada(), `?from=${new Date(Date.now() + 60_000).toISOString()}`)).toEqual([]);

    const first = (await file.as(ada()).get(`/api/audit-log?actor=${file.users.Bea.userId}&action=assistant.created&limit=2`)).json() as AuditPage;
    expect(first.data.map((e) => e.target_name)).toEqual(["B3", "B2"]);
    const second = (await file.as(ada()).get(`/api/audit-log?actor=${file.users.Bea.userId}&action=assistant.created&limit=2&cursor=${first.next_cursor}`)).json() as AuditPage;
    expect(second.data.map((e) => e.target_name)).toEqual(["B1"]);
    expect(second.next_cursor).toBeNull();

    expect((await file.as(ada()).get("/api/audit-log?action=nothing.done")).statusCode).toBe(400);
    expect((await file.as(ada()).get("/api/audit-log?from=yesterday")).statusCode).toBe(400);
  });

  it("exports CSV with the same filters", async () => {
    const res = await file.as(ada()).get(`/api/audit-log.csv?actor=${file.users.Bea.userId}&action=assistant.created`);
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toContain("text/csv");
    expect(res.headers["content-disposition"]).toMatch(/attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"/);
    const lines = res.body.trim().split("\r\n");
    expect(lines[0]).toBe(AUDIT_CSV_COLUMNS.join(","));
    expect(lines.slice(1).map((l) => l.split(",")[6])).toEqual(["B3", "B2", "B1"]);
    expect(lines[1]).toContain(",Bea,session,Assistant created,assistant,");
    // A session's entry has no key: the last column is empty.
    expect(lines[1]!.endsWith(",127.0.0.1,")).toBe(true);
  });

  it("is for admins and owners only: a supervisor, builder or viewer gets 403", async () => {
    for (const who of [file.users.Sam, file.users.Bea, file.users.Vic]) {
      for (const url of ["/api/audit-log", "/api/audit-log.csv"]) {
        const res = await file.as(who).get(url);
        expect(res.statusCode, url).toBe(403);
        expect(errorOf(res)).toEqual({ code: "forbidden", message: PERMISSIONS.audit.message });
      }
    }
    expect((await file.as(null).get("/api/audit-log")).statusCode).toBe(401);
  });

  it("never shows another organisation's entries", async () => {
    const eve = file.users.Eve;
    expect((await file.as(eve).post("/api/assistants", { name: "Eve's" })).statusCode).toBe(201);
    const evesLog = await log(eve);
    expect(evesLog.length).toBeGreaterThan(0);
    expect(evesLog.every((e) => e.actor_name === "Eve")).toBe(true);
    const adasLog = await log(ada(), "?limit=200");
    expect(adasLog.some((e) => e.target_name === "Eve's")).toBe(false);
    expect(await log(ada(), `?actor=${eve.userId}`)).toEqual([]);
    const csv = (await file.as(ada()).get("/api/audit-log.csv")).body;
    expect(csv).not.toContain("Eve's");
  });

  it("cannot be changed or deleted through the API", async () => {
    const [entry] = await log(ada());
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      for (const url of ["/api/audit-log", `/api/audit-log/${entry!.id}`, "/api/audit-log.csv"]) {
        const res = await file.as(ada()).request(method, url, method === "DELETE" ? undefined : { action: "auth.signed_in" });
        // The log's two addresses are read-only (405); no address names one entry (404).
        expect(res.statusCode, `${method} ${url}`).toBe(url.endsWith(entry!.id) ? 404 : 405);
      }
    }
    expect((await log(ada())).find((e) => e.id === entry!.id)).toEqual(entry);
    // The routes are the two reads; the repository has no update, and deletes only by age.
    const routes = file.app.printRoutes({ commonPrefix: false });
    expect(routes.match(/audit-log[^\n]*/g)?.join(" ")).not.toMatch(/POST|PUT|PATCH|DELETE/);
    expect(Object.keys(createAuditRepo(file.db)).sort()).toEqual(["insert", "list", "purge", "userName"]);
  });
});

describe("keeping entries", () => {
  it("removes entries older than a year, or than the organisation's call retention when longer", async () => {
    const now = new Date("2030-06-01T00:00:00Z");
    const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
    const base = { actorName: "Old", via: "session" as const, action: "auth.signed_in" as const };
    const repo = createAuditRepo(file.db);
    await repo.insert([
      { ...base, organizationId: org(), createdAt: daysAgo(400), targetName: "ada-400" },
      { ...base, organizationId: org(), createdAt: daysAgo(300), targetName: "ada-300" },
      { ...base, organizationId: file.users.Eve.organizationId, createdAt: daysAgo(400), targetName: "eve-400" },
    ]);
    await file.db.insert(callRetention).values({ organizationId: file.users.Eve.organizationId, recordingsDays: null, callsDays: 500 });
    await repo.purge(now, 365);
    const names = (await file.db.select({ n: auditLog.targetName }).from(auditLog).where(eq(auditLog.actorName, "Old"))).map((r) => r.n).sort();
    expect(names).toEqual(["ada-300", "eve-400"]);
  });
});
