import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { credentials } from "../../src/server/db/schema.ts";
import { startToolUpstream, type ToolUpstream } from "../fakes/tool-upstream.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../fakes/twilio-rest.ts";
import { buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import { ownedResources } from "./fixtures.ts";
import { LIST_ROUTES, OWNED_ROUTES, VERBS, type Fixtures, type Verb } from "./route-table.ts";

/**
 * Tenant isolation. The owner's resources are tried by another signed-in user and by an
 * anonymous client on every route in the table with every verb. A leak is another user's 2xx on
 * a path naming the owner's resource, any of the owner's data in an answer, or any change to
 * what the owner sees.
 */

let upstream: ToolUpstream;
let twilio: FakeTwilioRest;
let app: TestApp;
let owner: Awaited<ReturnType<typeof signUpAndLogIn>>;
let intruder: Awaited<ReturnType<typeof signUpAndLogIn>>;
let fixtures: Fixtures;
let markers: string[];
const figures: { actor: string; attempts: number; leaks: number }[] = [];

beforeAll(async () => {
  upstream = await startToolUpstream();
  twilio = await startFakeTwilioRest();
  ({ app } = await buildTestApp({ config: { TOOL_ALLOWED_HOSTS: "127.0.0.1", WEBHOOK_ALLOWED_HOSTS: "127.0.0.1", TWILIO_API_BASE: twilio.baseUrl } }));
  owner = await signUpAndLogIn(app, "Alpha Owner");
  intruder = await signUpAndLogIn(app, "Bravo Intruder");
  const upstreamUrl = `${upstream.origin}/echo`;
  fixtures = await ownedResources(app, twilio, owner, {
    upstreamUrl,
    tool: {
      name: "ALPHA-MARKER tool",
      type: "API",
      http_method: "GET",
      parameter_format: "standard",
      end_point_url: upstreamUrl,
      api_key: "sk-tool-ALPHA-WXWX",
      http_headers: { "X-Alpha-Header": "header-ALPHA-HVHV" },
    },
    assistant: { name: "ALPHA-MARKER assistant", instructions: "ALPHA-MARKER instructions" },
    callerNumber: "+15557771234",
    knowledgeText: "ALPHA-MARKER passage: returns within 30 days.",
  });
  // The intruder has a Twilio account of their own, so a refusal is about whose data it is, not missing settings.
  const theirs = twilio.addAccount();
  await app.inject({ method: "PUT", url: "/api/credentials/twilio", headers: { cookie: intruder.cookie }, payload: { account_sid: theirs.sid, auth_token: theirs.authToken } });
  await app.ctx.db.insert(credentials).values({ organizationId: owner.organizationId, name: "openai_api_key", valueEncrypted: app.ctx.secrets.encrypt("sk-alpha-key-QZQZ") });
  const [number] = twilio.numbersOf(fixtures.twilioSid);
  markers = [
    fixtures.toolId,
    fixtures.assistantId,
    fixtures.callId,
    fixtures.phoneNumberId,
    fixtures.knowledgeBaseId,
    fixtures.documentId,
    fixtures.sipTrunkId,
    fixtures.twilioSid,
    number!.phoneNumber,
    number!.sid,
    "5557771234",
    owner.organizationId,
    owner.email,
    "ALPHA",
    "WXWX",
    "HVHV",
    "QZQZ",
  ];
});

afterAll(async () => {
  const total = figures.reduce((t, f) => ({ attempts: t.attempts + f.attempts, leaks: t.leaks + f.leaks }), { attempts: 0, leaks: 0 });
  console.log(`\nIsolation: cross-tenant attempts ${total.attempts} / leaks ${total.leaks}`);
  console.table(figures);
  await app?.close();
  await upstream?.close();
  await twilio?.close();
});

/** Everything the owner can see of their own data, as one text. */
async function ownerView(): Promise<string> {
  const urls = [
    `/api/tools/${fixtures.toolId}`,
    `/api/assistants/${fixtures.assistantId}`,
    `/api/calls/${fixtures.callId}`,
    "/api/credentials/openai_api_key",
    "/api/credentials/twilio_account_sid",
    "/api/credentials/twilio_auth_token",
    "/api/tools",
    "/api/assistants",
    "/api/calls",
    "/api/phone-numbers",
    "/api/settings/retention",
    "/api/account",
    `/api/knowledge-bases/${fixtures.knowledgeBaseId}`,
    `/api/knowledge-bases/${fixtures.knowledgeBaseId}/documents`,
    `/api/sip-trunks/${fixtures.sipTrunkId}`,
  ];
  const bodies = await Promise.all(urls.map(async (url) => (await app.inject({ method: "GET", url, headers: { cookie: owner.cookie } })).body));
  // Signed recording URLs and the credential's updated_at are the only parts that may legitimately differ between reads.
  // The owner's numbers at Twilio itself (where they point, that they are still held).
  const atTwilio = JSON.stringify(twilio.numbersOf(fixtures.twilioSid).map((n) => [n.sid, n.phoneNumber, n.voiceUrl, n.statusCallback]));
  return [...bodies, atTwilio].join("\n").replace(/[?&](exp|sig)=[^"&]+/g, "");
}

async function attempt(actor: { cookie?: string }, verb: Verb, url: string, body?: Record<string, unknown>) {
  return app.inject({
    method: verb,
    url,
    headers: { ...(actor.cookie ? { cookie: actor.cookie } : {}), origin: app.ctx.config.publicUrl },
    ...(body && verb !== "GET" && verb !== "DELETE" ? { payload: body } : {}),
  });
}

describe("isolation: two users, every route, every verb", () => {
  for (const actorName of ["another user", "no session"] as const) {
    it(`${actorName}: 0 leaks`, async () => {
      const actor = actorName === "another user" ? { cookie: intruder.cookie } : {};
      const leaks: string[] = [];
      let attempts = 0;
      const targets = [
        ...Object.entries(OWNED_ROUTES).map(([name, r]) => ({ name, url: r.path(fixtures), body: r.body?.(fixtures), listing: r.listing ?? false })),
        ...LIST_ROUTES.map((url) => ({ name: url, url, body: {} as Record<string, unknown>, listing: true })),
      ];
      let view = await ownerView();
      for (const target of targets) {
        for (const verb of VERBS) {
          const res = await attempt(actor, verb, target.url, target.body);
          attempts++;
          // An id the request itself carried may be echoed back ("... not found"): that tells nothing new.
          const sent = `${target.url} ${verb === "GET" || verb === "DELETE" ? "" : JSON.stringify(target.body ?? {})}`;
          // Naming the owner's resource in the path or the body (an assistant to link, a tool to borrow) must be refused,
          // except by a list filtered by it, which must come back empty of the owner's data (the markers).
          const namesOwnersResource = !target.listing && [fixtures.toolId, fixtures.assistantId, fixtures.callId, fixtures.phoneNumberId, fixtures.knowledgeBaseId, fixtures.documentId, fixtures.sipTrunkId].some((id) => sent.includes(id));
          const shown = markers.filter((m) => res.body.includes(m) && !sent.includes(m));
          const after = await ownerView();
          const changed = after !== view;
          view = after;
          // Without a session only a 401 may answer, or a 405 for a method the path never takes (it tells nothing of the owner).
          const refusedUnsigned = res.statusCode === 401 || res.statusCode === 405;
          if ((namesOwnersResource && res.statusCode < 300) || shown.length || changed || (actorName === "no session" && !refusedUnsigned)) {
            leaks.push(`${verb} ${target.name}: ${res.statusCode}${shown.length ? ` shows ${shown.join(", ")}` : ""}${changed ? " changed the owner's data" : ""}`);
          }
        }
      }
      figures.push({ actor: actorName, attempts, leaks: leaks.length });
      expect(leaks).toEqual([]);
    }, 300_000);
  }
});
