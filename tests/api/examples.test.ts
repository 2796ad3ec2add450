/**
 * The reference's examples against the server: every operation that takes a JSON body documents
 * at least one example, and each example, sent through the generated client (whose answers are
 * held to the document, client.ts), is answered with a documented 2xx — in a world made first, with
 * the example world's ids (shared/examples.ts) swapped for the ids of resources made here, and the
 * outside services the examples reach played by the fakes (OpenAI embeddings and key check,
 * Twilio's REST API, OpenAI speech, a tool's upstream). Every example succeeds here, the Twilio
 * purchase and the outbound call included; one that cannot (it needs a real carrier) would be
 * named here with the documented 4xx it gets and why.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SwitchboardClient } from "../../src/client/api-client.ts";
import { calls } from "../../src/server/db/schema.ts";
import { EXAMPLE_IDS, EXAMPLE_INVITATION_TOKEN } from "../../src/shared/examples.ts";
import { FakeEmbeddings } from "../fakes/fake-embeddings.ts";
import { freePort } from "../free-port.ts";
import { startFakeOpenAISpeech, type FakeOpenAISpeech } from "../fakes/fake-openai-speech.ts";
import { startToolUpstream, type ToolUpstream } from "../fakes/tool-upstream.ts";
import { startFakeTwilioRest, type FakeTwilioRest } from "../fakes/twilio-rest.ts";
import { as, buildTestApp, signUpAndLogIn, type TestApp } from "../harness.ts";
import { joinAs } from "../team.ts";
import { servedDocument, sessionClient, testClient } from "./client.ts";
import { resolve, type ApiDocument } from "./schema-check.ts";

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Operation = { security?: Record<string, unknown>[]; requestBody?: { content: Record<string, { schema: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> }> } };
type Json = Record<string, unknown>;

/** The documented examples of an operation's JSON body: the media type's own, else its schema's. */
function examplesOf(doc: ApiDocument, op: Operation): unknown[] {
  const media = op.requestBody?.content["application/json"];
  if (!media) return [];
  if (media.example !== undefined) return [media.example];
  if (media.examples) return Object.values(media.examples).map((e) => e.value);
  return (resolve(doc, media.schema).examples as unknown[] | undefined) ?? [];
}

function operations(doc: ApiDocument): { path: string; method: (typeof METHODS)[number]; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((m) => item[m]).map((method) => ({ path, method, op: item[method] as Operation })));
}

let app: TestApp;
let db: Awaited<ReturnType<typeof buildTestApp>>["db"];
let speech: FakeOpenAISpeech;
let embeddings: FakeEmbeddings;
let twilio: FakeTwilioRest;
let upstream: ToolUpstream;

beforeAll(async () => {
  // The credential example's key is the one the fake OpenAI accepts, and its Twilio pair is an account the fake Twilio knows.
  embeddings = await FakeEmbeddings.start({ apiKey: "sk-proj-Ex4mpleKey0123456789abcdefGHIJ" });
  twilio = await startFakeTwilioRest();
  twilio.addAccount({ sid: "AC0123456789abcdef0123456789abcdef", authToken: "0123456789abcdef0123456789abcdef" });
  upstream = await startToolUpstream();
  speech = await startFakeOpenAISpeech({ apiKey: "sk-speech-test-key" });
  ({ app, db } = await buildTestApp({ config: { OPENAI_BASE_URL: embeddings.baseUrl, TWILIO_API_BASE: twilio.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1" } }));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await Promise.all([embeddings?.close(), twilio?.close(), upstream?.close(), speech?.close()]);
});

it("documents at least one example for every JSON request body", async () => {
  const doc = await servedDocument(app);
  const withBody = operations(doc).filter(({ op }) => op.requestBody?.content["application/json"]);
  const without = withBody.filter(({ op }) => examplesOf(doc, op).length === 0).map(({ method, path }) => `${method.toUpperCase()} ${path}`);
  expect(without).toEqual([]);
  expect(withBody.length).toBeGreaterThanOrEqual(42);
});

/** What a created resource's answer carries. */
const idOf = (answer: { data?: unknown; response: Response }, what: string): string => {
  expect(answer.response.status, `${what}: ${JSON.stringify(answer.data)}`).toBeLessThan(300);
  return (answer.data as { id: string }).id;
};

/** The world the examples are sent into: one account with a resource of each kind, and the people some examples need. */
async function makeWorld(doc: ApiDocument) {
  const owner = await signUpAndLogIn(app, "Ada");
  const session = sessionClient(app, doc, owner.cookie);
  const key = (await session.POST("/api/api-keys", { body: { name: "Examples" } })).data!.key;
  const api = testClient(app, doc, key);
  const saved = await api.PUT("/api/credentials/{name}", { params: { path: { name: "openai_api_key" } }, body: { value: embeddings.apiKey } });
  expect(saved.response.status).toBe(200);
  const saveTwilio = await api.PUT("/api/credentials/twilio", { body: { account_sid: "AC0123456789abcdef0123456789abcdef", auth_token: "0123456789abcdef0123456789abcdef" } });
  expect(saveTwilio.response.status).toBe(200);

  const assistant = idOf(await api.POST("/api/assistants", { body: { name: "Examples" } }), "assistant");
  // Version 1 exists whatever order the operations come in: the rollback and the pinned number name it.
  expect((await api.POST("/api/assistants/{id}/publish", { params: { path: { id: assistant } }, body: {} })).response.status).toBe(201);
  const tested = idOf(await api.POST("/api/assistants", { body: { name: "Tested" } }), "assistant with scenarios");
  const scenario = idOf(
    await api.POST("/api/assistants/{id}/scenarios", { params: { path: { id: tested } }, body: { name: "Greets", rubric: "Greets the caller", caller_turns: ["Hello"] } }),
    "scenario",
  );
  const makeTool = async (name: string) =>
    idOf(await api.POST("/api/tools", { body: { name, type: "API", http_method: "GET", parameter_format: "standard", end_point_url: `${upstream.origin}/json` } }), "tool");
  const tool = await makeTool("lookup");
  // Executed apart from the one the update example moves to example.com, which no test reaches.
  const executed = await makeTool("executed");
  const knowledgeBase = idOf(await api.POST("/api/knowledge-bases", { body: { name: "Handbook" } }), "knowledge base");
  const sipTrunk = idOf(await api.POST("/api/sip-trunks", { body: { name: "Examples PBX", inbound_addresses: ["198.51.100.0/24"] } }), "SIP trunk");
  // A number bought from (fake) Twilio: outbound calls and campaigns dial from it.
  const phoneNumber = idOf(await api.POST("/api/phone-numbers", { body: { country_code: "US", assistant_id: assistant } }), "Twilio number");
  const provider = idOf(
    await api.POST("/api/providers", { body: { name: "Speech", kind: "voice", protocol: "openai-speech", base_url: speech.baseUrl, api_key: speech.apiKey } }),
    "voice provider",
  );
  const webhook = idOf(await api.POST("/api/webhooks", { body: { url: "https://hooks.example.com/in", events: ["call.ended"] } }), "webhook");
  const at = new Date().toISOString();
  const [call] = await db
    .insert(calls)
    .values({
      organizationId: owner.organizationId,
      assistantId: assistant,
      startTime: new Date(Date.now() - 60_000),
      endTime: new Date(),
      logs: { isTest: false, transcript: [{ type: "user", content: "Can I move my cleaning to Tuesday?", timestamp: at }], toolsUsed: [] },
    })
    .returning({ id: calls.id });
  const member = await joinAs(app, owner, "viewer", "Vic");

  // An invitation for someone who has an account: they accept it with its token.
  const invitee = await signUpAndLogIn(app, "Ivy");
  const invited = await as(app, owner).post("/api/team/invitations", { email: invitee.email, role: "viewer" });
  const token = new URL((invited.json() as { url: string }).url).searchParams.get("token")!;

  const ids: Record<string, string> = {
    [EXAMPLE_IDS.assistant]: assistant,
    [EXAMPLE_IDS.tool]: tool,
    [EXAMPLE_IDS.knowledgeBase]: knowledgeBase,
    [EXAMPLE_IDS.phoneNumber]: phoneNumber,
    [EXAMPLE_IDS.sipTrunk]: sipTrunk,
    [EXAMPLE_IDS.provider]: provider,
    [EXAMPLE_IDS.scenario]: scenario,
    [EXAMPLE_INVITATION_TOKEN]: token,
  };
  /** The path ids of each resource's operations. */
  const pathIds = (path: string): Record<string, string> => {
    if (path.startsWith("/api/assistants/{id}/scenarios") || path.startsWith("/api/assistants/{id}/test-runs")) return { id: tested, sid: scenario };
    if (path.startsWith("/api/assistants/")) return { id: assistant };
    if (path === "/api/tools/{id}/execute") return { id: executed };
    if (path.startsWith("/api/tools/")) return { id: tool };
    if (path.startsWith("/api/knowledge-bases/")) return { id: knowledgeBase };
    if (path.startsWith("/api/phone-numbers/")) return { id: phoneNumber };
    if (path.startsWith("/api/sip-trunks/")) return { id: sipTrunk };
    if (path.startsWith("/api/providers/")) return { id: provider };
    if (path.startsWith("/api/webhooks/")) return { id: webhook };
    if (path.startsWith("/api/calls/")) return { id: call!.id };
    if (path.startsWith("/api/credentials/")) return { name: "openai_api_key" };
    if (path.startsWith("/api/team/members/")) return { userId: member.userId };
    return {};
  };
  /** Who sends: an API key where keys may call; else the owner's session, or the person the example is for. */
  const clientFor = async (method: string, path: string, op: Operation): Promise<SwitchboardClient> => {
    if (path === "/api/team/invitations/accept") return sessionClient(app, doc, invitee.cookie);
    // Changing one's password or deleting one's account: a person of their own (the examples' password is the test accounts').
    if (path === "/api/account/password" || (path === "/api/account" && method === "delete")) return sessionClient(app, doc, (await signUpAndLogIn(app, "Pat")).cookie);
    return op.security?.some((s) => "bearerAuth" in s) ? api : session;
  };
  return { ids, pathIds, clientFor };
}

/** Whether the operation's success answer is JSON (a voice preview answers audio). */
function answersJson(doc: ApiDocument, op: Operation): boolean {
  const responses = (op as { responses?: Record<string, Json> }).responses ?? {};
  return Object.entries(responses).some(([status, response]) => status.startsWith("2") && "application/json" in ((resolve(doc, response).content as Json | undefined) ?? {}));
}

/** The example with the example world's ids and token swapped for this world's. */
function swapIds(value: unknown, ids: Record<string, string>): unknown {
  if (typeof value === "string") return ids[value] ?? value;
  if (Array.isArray(value)) return value.map((v) => swapIds(v, ids));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swapIds(v, ids)]));
  return value;
}

it("answers every operation's documented request examples, sent through the generated client, with a documented 2xx", async () => {
  const doc = await servedDocument(app);
  const world = await makeWorld(doc);
  const failures: string[] = [];
  let sent = 0;
  for (const { path, method, op } of operations(doc)) {
    const examples = examplesOf(doc, op);
    for (const [n, example] of examples.entries()) {
      const name = `${method.toUpperCase()} ${path} #${n}`;
      const client = await world.clientFor(method, path, op);
      const body = swapIds(example, world.ids) as Json;
      const send = client[method.toUpperCase() as "POST"] as (
        path: string,
        init: { params: { path: Record<string, string> }; body: Json; parseAs?: "arrayBuffer" },
      ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
      // The client throws when the answer is not documented or breaks its schema (client.ts).
      const answer = await send(path, { params: { path: world.pathIds(path) }, body, ...(answersJson(doc, op) ? {} : { parseAs: "arrayBuffer" as const }) }).catch((err: Error) => ({
        thrown: err.message,
      }));
      sent++;
      if ("thrown" in answer) {
        failures.push(`${name}: ${answer.thrown}`);
        continue;
      }
      const status = answer.response.status;
      if (status < 200 || status >= 300) failures.push(`${name} answered ${status}: ${JSON.stringify(answer.error ?? answer.data).slice(0, 300)}`);
    }
  }
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThanOrEqual(42);
}, 120_000);

it("answers a tool's execute call with the documented 502 when the tool's server cannot be reached", async () => {
  const doc = await servedDocument(app);
  const owner = await signUpAndLogIn(app, "Grace");
  const key = (await sessionClient(app, doc, owner.cookie).POST("/api/api-keys", { body: { name: "Down" } })).data!.key;
  const api = testClient(app, doc, key);
  const closed = await freePort();
  const id = idOf(await api.POST("/api/tools", { body: { name: "down", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: `http://127.0.0.1:${closed}/json` } }), "tool");
  // The client fails any status the document does not list for the operation.
  const answer = await api.POST("/api/tools/{id}/execute", { params: { path: { id } }, body: { parameters: {} } });
  expect(answer.response.status).toBe(502);
  expect((answer.error as { error: { code: string } }).error.code).toBe("tool_connection_failed");
});
