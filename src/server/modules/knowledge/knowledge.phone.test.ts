import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeInOrder } from "../../../../tests/close.ts";
import { FakeEmbeddings } from "../../../../tests/fakes/fake-embeddings.ts";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { insertPhoneNumber, phoneOwner, startPhoneApp, TEST_AUTH_TOKEN, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { mulawSpeech } from "../../../../tests/fakes/twilio-speech.ts";
import { as } from "../../../../tests/harness.ts";
import { databaseHasPgvector } from "../../../../tests/knowledge-files.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { KNOWLEDGE_TOOL_NAME, type KnowledgeBase, type KnowledgeDocument } from "../../../shared/knowledge.ts";
import { calls } from "../../db/schema.ts";

/**
 * A caller asks a question on the phone: the model calls the retrieval function, gets the right
 * passage with its source within the same round trip, answers naming it, and the call's record
 * keeps the question and the passages. Real sockets throughout: the simulated Twilio, the fake
 * OpenAI Realtime server with the stand-in embeddings API on the same base URL, the database.
 */

const FROM = "+15559876";
let fake: FakeRealtime;
let embeddings: FakeEmbeddings;
let app: PhoneApp;
let owner: Caller;
let baseId: string;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-kb-phone" });
  embeddings = await FakeEmbeddings.start({ apiKey: fake.apiKey, serveOn: fake });
  app = await startPhoneApp(fake, { JOB_POLL_INTERVAL_MS: "500" });
  owner = await phoneOwner(app, fake.apiKey);
  baseId = ((await as(app.app, owner).post("/api/knowledge-bases", { name: "Policies" })).json() as KnowledgeBase).id;
  for (const [name, text] of [
    ["Returns policy", "# Returns\n\nYou can return any item within 30 days of delivery for a full refund.\n\n# Exchanges\n\nExchanges are free of charge in any of our shops."],
    ["Opening hours", "Our shops are open Monday to Saturday from 9am to 6pm."],
  ] as const) {
    const doc = (await as(app.app, owner).post(`/api/knowledge-bases/${baseId}/documents`, { name, text })).json() as KnowledgeDocument;
    for (let ready = false; !ready; await new Promise((r) => setTimeout(r, 100))) {
      const docs = (await as(app.app, owner).get(`/api/knowledge-bases/${baseId}/documents`)).json().data as KnowledgeDocument[];
      ready = docs.find((d) => d.id === doc.id)?.status === "ready";
    }
  }
});
afterAll(() => closeInOrder(app.app, embeddings, fake));

describe("a phone call with a knowledge base", () => {
  it("the model calls the retrieval function and gets the right passage with its source; the record keeps both", async () => {
    const to = "+15550201";
    const assistantId = (await createAssistant(app.app, owner, { knowledge_base_ids: [baseId], knowledge: { passages: 2 } })).id;
    await insertPhoneNumber(app, owner, to, assistantId);
    const question = "How long do I have to return something?";
    const vectors = await databaseHasPgvector(app.db);
    fake.script = {
      speechMs: 800,
      userSays: [question],
      replies: [
        { say: "Let me look that up.", audioMs: 300, toolCalls: [{ name: KNOWLEDGE_TOOL_NAME, arguments: { query: "how many days to return an item" } }] },
        "According to our returns policy, you can return any item within 30 days.",
      ],
    };
    const index = fake.connections.length;
    const call = await TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to, from: FROM });
    await call.openStream();
    const conn = await fake.connection(index);
    const update = await conn.waitFor("session.update");
    const tools = (update["session"] as { tools: Array<{ name: string; parameters: unknown }> }).tools;
    expect(tools.find((t) => t.name === KNOWLEDGE_TOOL_NAME)?.parameters).toMatchObject({ required: ["query"] });

    await call.until(() => call.heardMs >= 400, "greeting heard");
    const embeddedBefore = embeddings.embeddedTexts.length;
    await call.speak(mulawSpeech(question), 800);
    await conn.until(() => conn.receivedOf("conversation.item.create").length > 0, 8000, "retrieval output");
    const item = conn.receivedOf("conversation.item.create")[0]!["item"] as { type: string; output: string };
    expect(item.type).toBe("function_call_output");
    const output = JSON.parse(item.output) as { passages: Array<{ source: string; text: string }> };
    // By meaning both passages come back (limit 2); by words only, just the one that shares them.
    expect(output.passages).toHaveLength(vectors ? 2 : 1);
    expect(output.passages[0]).toMatchObject({ source: "Returns policy (Returns)" });
    expect(output.passages[0]!.text).toContain("within 30 days");
    // The question's embedding was the one remote request on the way (none without pgvector).
    expect(embeddings.embeddedTexts.slice(embeddedBefore)).toEqual(vectors ? ["how many days to return an item"] : []);

    await conn.until(() => conn.sentOf("response.done").length >= 3, 5000, "the answer");
    await call.hangUp();
    let row: typeof calls.$inferSelect | undefined;
    for (const started = Date.now(); Date.now() - started < 5000 && !(row?.endTime && row.cost !== null); await new Promise((r) => setTimeout(r, 20))) {
      [row] = await app.db.select().from(calls).where(eq(calls.providerCallSid, call.callSid));
    }
    const logs = callLogsSchema.parse(row!.logs);
    const used = logs.toolsUsed.find((t) => t.name === KNOWLEDGE_TOOL_NAME);
    expect(used?.parameters).toEqual({ query: "how many days to return an item" });
    expect(JSON.stringify(used?.result)).toContain("Returns policy (Returns)");
    expect(logs.transcript.map((e) => [e.type, e.content])).toEqual(
      expect.arrayContaining([
        ["user", question],
        ["assistant", "According to our returns policy, you can return any item within 30 days."],
      ]),
    );
  });

  it("a small base can be placed whole in the instructions instead, with its sources", async () => {
    const to = "+15550202";
    const assistantId = (await createAssistant(app.app, owner, { knowledge_base_ids: [baseId], knowledge: { mode: "instructions" } })).id;
    await insertPhoneNumber(app, owner, to, assistantId);
    fake.script = { userSays: [] };
    const index = fake.connections.length;
    const call = await TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to, from: FROM });
    await call.openStream();
    const update = await (await fake.connection(index)).waitFor("session.update");
    const session = update["session"] as { instructions: string; tools: Array<{ name: string }> };
    expect(session.instructions).toContain("You are Ava.");
    expect(session.instructions).toContain("[Returns policy, Returns]");
    expect(session.instructions).toContain("Monday to Saturday");
    expect(session.tools.map((t) => t.name)).not.toContain(KNOWLEDGE_TOOL_NAME);
    await call.hangUp();
  });

  it("an assistant cannot be given another organisation's knowledge base", async () => {
    const other = await phoneOwner(app, fake.apiKey);
    const res = await as(app.app, other).post("/api/assistants", { name: "Thief", knowledge_base_ids: [baseId] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: { code: "unknown_knowledge_base" } });
  });
});
