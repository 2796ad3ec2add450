import { describe, expect, it } from "vitest";
import { TEAM_MESSAGES, type OrganizationItem, type TeamInvitation, type TeamMember } from "../../../shared/team.ts";
import { PERMISSIONS } from "../../../shared/roles.ts";
import { calls } from "../../db/schema.ts";
import { buildTestApp, errorOf, signUpAndLogIn, useTestApp } from "../../../../tests/harness.ts";
import { newAccount, signUp, injectPost } from "../../../../tests/sign-up.ts";
import { joinAs } from "../../../../tests/team.ts";

let now = new Date("2026-11-25T12:00:00Z");
const file = useTestApp({ deps: { clock: () => now } });
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

async function invite(owner: { cookie: string }, email: string, role = "builder") {
  const res = await file.as(owner).post("/api/team/invitations", { email, role });
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string; url: string; expires_at: string; emailed: boolean };
}

describe("organisations", () => {
  it("sign-up makes the user the owner of their own team, the one they work in", async () => {
    const ada = await signUpAndLogIn(file.app, "Ada Lovelace");
    const res = await file.as(ada).get("/api/organizations");
    expect(res.json().data).toEqual([{ id: ada.organizationId, name: "Ada Lovelace's team", role: "owner", current: true }] satisfies OrganizationItem[]);
    expect((await file.as(ada).get("/api/organization")).json()).toEqual({ organization: { id: ada.organizationId, name: "Ada Lovelace's team" }, role: "owner" });
    expect((await file.as(ada).patch("/api/organization", { name: "Front office" })).statusCode).toBe(204);
    expect((await file.as(ada).get("/api/organization")).json()).toMatchObject({ organization: { name: "Front office" } });
  });

  it("a member works in the team they joined, switches back to their own, and cannot switch into another", async () => {
    const owner = await signUpAndLogIn(file.app, "Olive Owner");
    const stranger = await signUpAndLogIn(file.app, "Sam Stranger");
    const shared = (await file.as(owner).post("/api/assistants", { name: "Front desk" })).json() as { id: string };
    const builder = await joinAs(file.app, owner, "builder", "Bea Builder");

    // The accepted invitation made the team current: its assistants are the member's to edit.
    expect(((await file.as(builder).get("/api/assistants")).json().data as { id: string }[]).map((a) => a.id)).toEqual([shared.id]);
    expect((await file.as(builder).patch(`/api/assistants/${shared.id}`, { name: "Reception" })).statusCode).toBe(200);
    const created = (await file.as(builder).post("/api/assistants", { name: "Made by Bea" })).json() as { id: string };
    expect(((await file.as(owner).get("/api/assistants")).json().data as { id: string }[]).map((a) => a.id).sort()).toEqual([shared.id, created.id].sort());

    const orgs = (await file.as(builder).get("/api/organizations")).json().data as OrganizationItem[];
    const own = orgs.find((o) => o.role === "owner")!;
    expect(orgs.find((o) => o.current)).toMatchObject({ id: owner.organizationId, role: "builder" });
    expect((await file.as(builder).post(`/api/organizations/${own.id}/switch`)).statusCode).toBe(204);
    expect((await file.as(builder).get("/api/assistants")).json().data).toEqual([]);
    expect((await file.as(builder).get(`/api/assistants/${shared.id}`)).statusCode).toBe(404);

    expect((await file.as(builder).post(`/api/organizations/${stranger.organizationId}/switch`)).statusCode).toBe(404);
    expect((await file.as(builder).get("/api/assistants")).json().data).toEqual([]);
  });
});

describe("invitations", () => {
  it("someone who signs up to an invitation gets no team of their own: they accept first, and only a gone invitation gives them one", async () => {
    const owner = await signUpAndLogIn(file.app, "Nora Owner");
    const account = newAccount("Ines Invitee");
    const link = await invite(owner, account.email, "viewer");
    const ines = await signUp(injectPost(file.app), account);

    const waiting = await file.as(ines).get("/api/assistants");
    expect(waiting.statusCode).toBe(403);
    expect(errorOf(waiting)).toEqual({ code: "invitation_pending", message: TEAM_MESSAGES.invitationPending });
    expect((await file.as(ines).post("/api/team/invitations/accept", { token: tokenOf(link.url) })).statusCode).toBe(200);
    const orgs = (await file.as(ines).get("/api/organizations")).json().data as OrganizationItem[];
    expect(orgs).toEqual([{ id: owner.organizationId, name: "Nora Owner's team", role: "viewer", current: true }]);

    // Invited, signed up, and the invitation revoked before they accepted: a team of their own after all.
    const late = newAccount("Lou Late");
    const revoked = await invite(owner, late.email, "viewer");
    const lou = await signUp(injectPost(file.app), late);
    expect((await file.as(owner).delete(`/api/team/invitations/${revoked.id}`)).statusCode).toBe(204);
    expect((await file.as(lou).get("/api/organization")).json()).toMatchObject({ organization: { name: "Lou Late's team" }, role: "owner" });
  });

  it("are single-use, for the invited address only, revocable, and expire after 7 days", async () => {
    const owner = await signUpAndLogIn(file.app, "Iris Inviter");
    const invitee = await signUpAndLogIn(file.app, "Ivan Invitee");
    const other = await signUpAndLogIn(file.app, "Oscar Other");

    const first = await invite(owner, invitee.email.toUpperCase(), "supervisor");
    expect(first.emailed).toBe(false);
    expect(Date.parse(first.expires_at) - now.getTime()).toBe(7 * 24 * 3600_000);
    const listed = (await file.as(owner).get("/api/team/invitations")).json().data as TeamInvitation[];
    expect(listed).toEqual([expect.objectContaining({ id: first.id, email: invitee.email, role: "supervisor", invited_by: "Iris Inviter" })]);
    expect(errorOf(await file.as(owner).post("/api/team/invitations", { email: invitee.email, role: "viewer" })).message).toBe(TEAM_MESSAGES.alreadyInvited);

    // The link's page names the team before anyone signs in.
    const preview = await file.as(null).get(`/api/invitations/preview?token=${tokenOf(first.url)}`);
    expect(preview.json()).toEqual({ organization: "Iris Inviter's team", email: invitee.email, role: "supervisor", expires_at: first.expires_at });

    const wrong = await file.as(other).post("/api/team/invitations/accept", { token: tokenOf(first.url) });
    expect(wrong.statusCode).toBe(403);
    expect(errorOf(wrong).message).toBe(TEAM_MESSAGES.invitationOtherEmail);

    expect((await file.as(invitee).post("/api/team/invitations/accept", { token: tokenOf(first.url) })).statusCode).toBe(200);
    const again = await file.as(invitee).post("/api/team/invitations/accept", { token: tokenOf(first.url) });
    expect(again.statusCode).toBe(404);
    expect(errorOf(again).message).toBe(TEAM_MESSAGES.invitationInvalid);
    expect((await file.as(null).get(`/api/invitations/preview?token=${tokenOf(first.url)}`)).statusCode).toBe(404);
    const members = (await file.as(owner).get("/api/team/members")).json().data as TeamMember[];
    expect(members.map((m) => [m.name, m.role])).toEqual([
      ["Iris Inviter", "owner"],
      ["Ivan Invitee", "supervisor"],
    ]);
    expect(errorOf(await file.as(owner).post("/api/team/invitations", { email: invitee.email, role: "viewer" })).message).toBe(TEAM_MESSAGES.alreadyMember);

    const revoked = await invite(owner, other.email);
    expect((await file.as(owner).delete(`/api/team/invitations/${revoked.id}`)).statusCode).toBe(204);
    expect((await file.as(other).post("/api/team/invitations/accept", { token: tokenOf(revoked.url) })).statusCode).toBe(404);

    const late = await invite(owner, other.email);
    now = new Date(now.getTime() + 7 * 24 * 3600_000 + 60_000);
    const expired = await file.as(other).post("/api/team/invitations/accept", { token: tokenOf(late.url) });
    expect(expired.statusCode).toBe(410);
    expect(errorOf(expired).message).toBe(TEAM_MESSAGES.invitationExpired);
    expect((await file.as(owner).get("/api/team/invitations")).json().data).toEqual([]);
  });
});

describe("members and roles", () => {
  it("a role change or a removal takes effect at the next request", async () => {
    const owner = await signUpAndLogIn(file.app, "Rita Owner");
    const assistant = (await file.as(owner).post("/api/assistants", { name: "Desk" })).json() as { id: string };
    const sup = await joinAs(file.app, owner, "supervisor", "Sid Supervisor");
    expect((await file.as(sup).get("/api/calls/export.csv")).statusCode).toBe(200);
    const edit = await file.as(sup).patch(`/api/assistants/${assistant.id}`, { name: "Mine now" });
    expect(edit.statusCode).toBe(403);
    expect(errorOf(edit)).toEqual({ code: "forbidden", message: PERMISSIONS.build.message });

    expect((await file.as(owner).patch(`/api/team/members/${sup.userId}`, { role: "viewer" })).statusCode).toBe(204);
    expect((await file.as(sup).get("/api/calls/export.csv")).statusCode).toBe(403);
    expect((await file.as(sup).get(`/api/assistants/${assistant.id}`)).statusCode).toBe(200);

    expect((await file.as(owner).delete(`/api/team/members/${sup.userId}`)).statusCode).toBe(204);
    expect((await file.as(sup).get(`/api/assistants/${assistant.id}`)).statusCode).toBe(404);
    expect(((await file.as(sup).get("/api/organization")).json() as { role: string }).role).toBe("owner");
    expect((await file.as(owner).delete(`/api/team/members/${sup.userId}`)).statusCode).toBe(404);
  });

  it("a viewer reads a call but gets no recording address; a supervisor does", async () => {
    const owner = await signUpAndLogIn(file.app, "Rhea Recorder");
    const [call] = await file.db.insert(calls).values({ organizationId: owner.organizationId, assistantName: "Desk", recording: "recordings/x.wav" }).returning();
    const viewer = await joinAs(file.app, owner, "viewer", "Val Viewer");
    const sup = await joinAs(file.app, owner, "supervisor", "Sue Supervisor");
    const seen = (await file.as(viewer).get(`/api/calls/${call!.id}`)).json() as { id: string; recording_url: string | null };
    expect(seen).toMatchObject({ id: call!.id, recording_url: null });
    expect((await file.as(viewer).get(`/api/calls/${call!.id}/recording`)).statusCode).toBe(403);
    expect(((await file.as(sup).get(`/api/calls/${call!.id}`)).json() as { recording_url: string | null }).recording_url).toMatch(/^\/api\/media\/recordings\/x\.wav\?/);
  });

  it("keeps an owner: the last one can neither be demoted nor removed, and only owners make owners", async () => {
    const owner = await signUpAndLogIn(file.app, "Leah Last");
    const admin = await joinAs(file.app, owner, "admin", "Adam Admin");
    for (const res of [
      await file.as(owner).patch(`/api/team/members/${owner.userId}`, { role: "admin" }),
      await file.as(owner).delete(`/api/team/members/${owner.userId}`),
    ]) {
      expect(res.statusCode).toBe(409);
      expect(errorOf(res).message).toBe(TEAM_MESSAGES.lastOwner);
    }
    for (const res of [
      await file.as(admin).patch(`/api/team/members/${admin.userId}`, { role: "owner" }),
      await file.as(admin).patch(`/api/team/members/${owner.userId}`, { role: "viewer" }),
      await file.as(admin).delete(`/api/team/members/${owner.userId}`),
      await file.as(admin).post("/api/team/invitations", { email: "new-owner@example.com", role: "owner" }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(errorOf(res).message).toBe(TEAM_MESSAGES.ownerOnly);
    }
    // Ownership passes on: make the admin an owner, then step down.
    expect((await file.as(owner).patch(`/api/team/members/${admin.userId}`, { role: "owner" })).statusCode).toBe(204);
    expect((await file.as(owner).patch(`/api/team/members/${owner.userId}`, { role: "admin" })).statusCode).toBe(204);
    const members = (await file.as(admin).get("/api/team/members")).json().data as TeamMember[];
    expect(Object.fromEntries(members.map((m) => [m.name, m.role]))).toEqual({ "Leah Last": "admin", "Adam Admin": "owner" });
  });

  it("two owners stepping down or removing each other at the same moment leave one owner", async () => {
    const statuses = (results: { statusCode: number }[]) => results.map((r) => r.statusCode).sort();
    const expectOneRefused = (results: Awaited<ReturnType<ReturnType<typeof file.as>["get"]>>[]) => {
      expect(statuses(results)).toEqual([204, 409]);
      expect(errorOf(results.find((r) => r.statusCode === 409)!)).toEqual({ code: "last_owner", message: TEAM_MESSAGES.lastOwner });
    };
    const ownersOf = async (who: { cookie: string }) =>
      ((await file.as(who).get("/api/team/members")).json().data as TeamMember[]).filter((m) => m.role === "owner").map((m) => m.name);

    const first = await signUpAndLogIn(file.app, "Ona Owner");
    const second = await joinAs(file.app, first, "owner", "Otto Owner");
    const down = await Promise.all([
      file.as(first).patch(`/api/team/members/${first.userId}`, { role: "admin" }),
      file.as(second).patch(`/api/team/members/${second.userId}`, { role: "viewer" }),
    ]);
    expectOneRefused(down);
    expect(await ownersOf(first)).toHaveLength(1);

    const third = await signUpAndLogIn(file.app, "Tia Three");
    const fourth = await joinAs(file.app, third, "owner", "Finn Four");
    const removed = await Promise.all([
      file.as(third).delete(`/api/team/members/${fourth.userId}`),
      file.as(fourth).delete(`/api/team/members/${third.userId}`),
    ]);
    // The one removed first may be gone before their own request is read (404): either way, one owner stays.
    expect(statuses(removed)[0]).toBe(204);
    expect([404, 409]).toContain(statuses(removed)[1]);
    const survivor = removed[0]!.statusCode === 204 ? third : fourth;
    expect(await ownersOf(survivor)).toHaveLength(1);
  });

  it("an account that is the only owner of a team with others cannot be deleted until it hands ownership on", async () => {
    const owner = await signUpAndLogIn(file.app, "Della Deleter");
    await joinAs(file.app, owner, "viewer", "Vic Viewer");
    const res = await file.as(owner).request("DELETE", "/api/account", { password: owner.password });
    expect(res.statusCode).toBe(409);
    expect(errorOf(res).message).toBe("You are the only owner of Della Deleter's team: make another member an owner first.");
    expect((await file.as(owner).get("/api/organization")).statusCode).toBe(200);
  });

  it("an API key sees its organisation's members but, even its owner's, never invites", async () => {
    const owner = await signUpAndLogIn(file.app, "Kim Keys");
    const key = ((await file.as(owner).post("/api/api-keys", { name: "CRM" })).json() as { key: string }).key;
    const bearer = { authorization: `Bearer ${key}` };
    const members = await file.app.inject({ method: "GET", url: "/api/team/members", headers: bearer });
    expect((members.json().data as TeamMember[]).map((m) => m.name)).toEqual(["Kim Keys"]);
    for (const role of ["owner", "viewer"]) {
      const invite = await file.app.inject({ method: "POST", url: "/api/team/invitations", headers: bearer, payload: { email: "boss@example.com", role } });
      expect(invite.statusCode).toBe(403);
      expect(errorOf(invite).code).toBe("session_required");
    }
  });
});

describe("who may sign up (SIGNUP)", () => {
  it("invite: the first user of an empty server, then invited addresses only", async () => {
    const { app } = await buildTestApp({ config: { SIGNUP: "invite" } });
    try {
      const first = await signUp(injectPost(app), newAccount("First Owner"));
      const refused = await injectPost(app)("/api/auth/sign-up/email", newAccount("Walk In"));
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ error: { message: TEAM_MESSAGES.signupClosed } });
      const guest = newAccount("Invited Guest");
      const invited = await app.inject({ method: "POST", url: "/api/team/invitations", headers: { cookie: first.cookie }, payload: { email: guest.email, role: "viewer" } });
      expect(invited.statusCode).toBe(201);
      await signUp(injectPost(app), guest);
    } finally {
      await app.close();
    }
  });

  it("domain: only the listed domains", async () => {
    const { app } = await buildTestApp({ config: { SIGNUP: "domain:example.com" } });
    try {
      await signUp(injectPost(app), newAccount("Ex Ample"));
      const outsider = await injectPost(app)("/api/auth/sign-up/email", { ...newAccount("Out Sider"), email: "out@elsewhere.org" });
      expect(outsider.status).toBe(403);
      expect(JSON.parse(outsider.body)).toMatchObject({ error: { message: TEAM_MESSAGES.signupDomain } });
    } finally {
      await app.close();
    }
  });
});
