import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERMISSIONS, ROLES, roleAtLeast, type Role } from "../../src/shared/roles.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import type { SignedUp } from "../sign-up.ts";
import { joinAs } from "../team.ts";

/**
 * Every role × every authenticated route, from the team's role table: each role can do all that
 * the roles below it can. Listed here by the lowest role allowed, independently of the server's
 * own table; a route the app serves that is missing here fails the first test.
 */
const LOWEST: Record<Role, readonly string[]> = {
  viewer: [
    "GET /api/assistants/defaults", "GET /api/assistants", "GET /api/assistants/:id", "GET /api/assistants/:id/versions",
    "GET /api/assistants/:id/versions/:n", "GET /api/assistants/:id/scenarios", "GET /api/assistants/:id/test-runs/latest",
    "GET /api/test-runs/:id", "GET /api/tools", "GET /api/tools/:id", "GET /api/calls", "GET /api/calls/stats",
    "GET /api/calls/:id", "GET /api/assistants/:id/analysis-runs/latest", "GET /api/assistants/:id/analysis-runs/:runId",
    "GET /api/campaigns", "GET /api/campaigns/:id", "GET /api/campaigns/:id/contacts",
    "GET /api/dnc", "GET /api/phone-numbers", "GET /api/telephony/reachability", "GET /api/settings/retention",
    "GET /api/settings/calls", "GET /api/settings/busy-message", "GET /api/settings/dial-allow-list", "GET /api/organizations", "POST /api/organizations/:id/switch", "GET /api/organization",
    "GET /api/team/members", "POST /api/team/invitations/accept", "GET /api/account", "PATCH /api/account/name",
    "POST /api/account/password", "DELETE /api/account", "GET /api/demo-requests", "GET /api/getting-started",
    "GET /api/assistants/drafts", "GET /api/knowledge-bases/status", "GET /api/knowledge-bases", "GET /api/knowledge-bases/:id", "GET /api/knowledge-bases/:id/documents",
    "POST /api/knowledge-bases/:id/search",
    "GET /api/sip-trunks", "GET /api/sip-trunks/listener", "GET /api/sip-trunks/:id",
    "GET /api/providers", "GET /api/providers/:id",
  ],
  supervisor: [
    "GET /api/calls/export.csv", "GET /api/calls/:id/recording", "POST /api/calls/:id/analysis", "POST /api/assistants/:id/analysis-runs",
    "GET /api/live/board", "GET /api/live/calls/:callId", "GET /api/campaigns/:id/contacts.csv",
  ],
  builder: [
    "POST /api/assistants", "PATCH /api/assistants/:id", "DELETE /api/assistants/:id", "POST /api/assistants/:id/publish",
    "POST /api/assistants/:id/rollback", "POST /api/assistants/:id/scenarios", "PATCH /api/assistants/:id/scenarios/:sid",
    "DELETE /api/assistants/:id/scenarios/:sid", "POST /api/assistants/:id/test-runs", "POST /api/test-runs/:id/cancel", "POST /api/tools", "PATCH /api/tools/:id", "DELETE /api/tools/:id",
    "POST /api/tools/:id/execute", "POST /api/calls/test-session", "GET /api/calls/live", "POST /api/calls/outbound", "POST /api/calls/:id/cancel",
    "POST /api/campaigns", "POST /api/campaigns/:id/:action", "PUT /api/campaigns/:id/contacts", "POST /api/dnc", "DELETE /api/dnc/:phone", "PATCH /api/phone-numbers/:id",
    "POST /api/calls/:id/replay", "POST /api/calls/:id/scenario",
    "POST /api/knowledge-bases", "PATCH /api/knowledge-bases/:id", "DELETE /api/knowledge-bases/:id", "POST /api/knowledge-bases/:id/documents",
    "PUT /api/knowledge-bases/:id/documents/:docId", "POST /api/knowledge-bases/:id/documents/:docId/reprocess", "DELETE /api/knowledge-bases/:id/documents/:docId",
    "POST /api/sip-trunks", "PATCH /api/sip-trunks/:id", "DELETE /api/sip-trunks/:id", "POST /api/providers/:id/preview",
  ],
  admin: [
    "POST /api/providers", "PATCH /api/providers/:id", "DELETE /api/providers/:id",
    "POST /api/phone-numbers", "DELETE /api/phone-numbers/:id", "GET /api/credentials/:name", "PUT /api/credentials/:name",
    "PUT /api/credentials/twilio", "DELETE /api/credentials/:name", "PUT /api/settings/retention", "PUT /api/settings/calls", "PUT /api/settings/busy-message",
    "PUT /api/settings/dial-allow-list", "DELETE /api/calls/:id", "GET /api/webhooks", "GET /api/webhooks/:id", "GET /api/webhooks/:id/deliveries", "POST /api/webhooks",
    "PATCH /api/webhooks/:id", "DELETE /api/webhooks/:id", "POST /api/webhooks/:id/rotate",
    "POST /api/webhooks/:id/test", "POST /api/webhooks/deliveries/:id/resend", "GET /api/api-keys", "POST /api/api-keys",
    "DELETE /api/api-keys/:id", "PATCH /api/organization", "PATCH /api/team/members/:userId", "DELETE /api/team/members/:userId",
    "GET /api/team/invitations", "POST /api/team/invitations", "DELETE /api/team/invitations/:id", "GET /api/audit-log",
    "GET /api/audit-log.csv",
  ],
  owner: [],
};
/**
 * What no API key may call, whatever its creator's role: the team, the keys themselves, webhook
 * secrets, a person's own account and organisations. Listed here independently of the server.
 */
const KEY_NEVER: readonly string[] = [
  "PATCH /api/organization", "PATCH /api/team/members/:userId", "DELETE /api/team/members/:userId", "GET /api/team/invitations",
  "POST /api/team/invitations", "DELETE /api/team/invitations/:id", "POST /api/team/invitations/accept",
  "GET /api/api-keys", "POST /api/api-keys", "DELETE /api/api-keys/:id",
  "POST /api/webhooks/:id/rotate",
  "GET /api/organizations", "POST /api/organizations/:id/switch", "GET /api/account", "PATCH /api/account/name",
  "POST /api/account/password", "DELETE /api/account", "GET /api/demo-requests",
];
const lowestOf = new Map(Object.entries(LOWEST).flatMap(([role, routes]) => routes.map((r) => [r, role as Role])));

const NIL = "00000000-0000-4000-8000-000000000000";
const fill = (url: string) => url.replace(/:\w+/g, (p) => (p === ":n" ? "1" : p === ":name" ? "openai_api_key" : p === ":phone" ? "+15550000000" : p === ":action" ? "pause" : NIL));

let app: TestApp;
const routes: RouteOptions[] = [];
const members = {} as Record<Role, SignedUp>;
/** Per role, a key whose creator has that role now (made while an admin, then moved to it). */
const keys = {} as Record<Role, string>;

async function makeKey(creator: SignedUp): Promise<string> {
  const created = await app.inject({ method: "POST", url: "/api/api-keys", headers: { cookie: creator.cookie }, payload: { name: "Matrix" } });
  if (created.statusCode !== 201) throw new Error(`key failed: ${created.statusCode} ${created.body}`);
  return (created.json() as { key: string }).key;
}

beforeAll(async () => {
  ({ app } = await buildTestApp({ deps: { onRoute: (route) => void routes.push(route) } }));
  members.owner = await signUpAndLogIn(app, "Olga Owner");
  for (const role of ROLES.filter((r) => r !== "owner")) members[role] = await joinAs(app, members.owner, role);
  keys.owner = await makeKey(members.owner);
  for (const role of ROLES.filter((r) => r !== "owner")) {
    const creator = await joinAs(app, members.owner, "admin", `Key maker ${role}`);
    keys[role] = await makeKey(creator);
    if (role !== "admin") {
      const moved = await app.inject({ method: "PATCH", url: `/api/team/members/${creator.userId}`, headers: { cookie: members.owner.cookie }, payload: { role } });
      if (moved.statusCode !== 204) throw new Error(`role change failed: ${moved.statusCode} ${moved.body}`);
    }
  }
});
afterAll(() => app?.close());

/** The routes behind sign-in (those the server gave a permission): "METHOD /url". */
const authenticated = () =>
  routes
    .filter((r) => (r.config as { permission?: string } | undefined)?.permission)
    .flatMap((r) => [r.method].flat().filter((m) => m !== "HEAD").map((m) => `${m} ${r.url}`));

describe("the role matrix", { timeout: 60_000 }, () => {
  it("names the lowest role of every authenticated route the app serves", () => {
    const missing = authenticated().filter((key) => !lowestOf.has(key));
    expect(missing).toEqual([]);
    expect(authenticated().length).toBeGreaterThan(80);
    expect(KEY_NEVER.filter((key) => !authenticated().includes(key))).toEqual([]);
  });

  it.each(ROLES)("%s: allowed where the table allows, 403 forbidden in words everywhere else", async (role) => {
    const wrong: string[] = [];
    for (const key of authenticated()) {
      const [method, url] = key.split(" ") as [string, string];
      const lowest = lowestOf.get(key)!;
      const res = await app.inject({ method: method as "GET", url: fill(url), headers: { cookie: members[role].cookie }, ...(method === "GET" || method === "DELETE" ? {} : { payload: {} }) });
      const refused = res.statusCode === 403 && (res.json() as { error?: { code?: string } }).error?.code === "forbidden";
      if (roleAtLeast(role, lowest) === refused || res.statusCode >= 500) wrong.push(`${key}: ${res.statusCode} ${res.body.slice(0, 120)}`);
      else if (refused) {
        const message = (res.json() as { error: { message: string } }).error.message;
        if (!Object.values(PERMISSIONS).some((p) => p.message === message)) wrong.push(`${key}: unexpected message ${message}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(ROLES)("an API key whose creator is %s: the creator's routes, never the people-only ones", async (role) => {
    const bearer = { authorization: `Bearer ${keys[role]}` };
    const wrong: string[] = [];
    for (const key of authenticated()) {
      const [method, url] = key.split(" ") as [string, string];
      const res = await app.inject({ method: method as "GET", url: fill(url), headers: bearer, ...(method === "GET" || method === "DELETE" ? {} : { payload: {} }) });
      const code = res.statusCode === 403 ? (res.json() as { error: { code: string } }).error.code : null;
      const expected = KEY_NEVER.includes(key) ? "session_required" : roleAtLeast(role, lowestOf.get(key)!) ? null : "forbidden";
      if (code !== expected || res.statusCode === 401 || res.statusCode >= 500) wrong.push(`${key}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    }
    expect(wrong).toEqual([]);
  });
});
