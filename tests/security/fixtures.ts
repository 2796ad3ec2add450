import { calls } from "../../src/server/db/schema.ts";
import type { FakeTwilioRest } from "../fakes/twilio-rest.ts";
import type { TestApp } from "../harness.ts";
import type { Fixtures } from "./route-table.ts";

/**
 * One of everything a user can own, made the way a user makes it: a tool and an assistant through
 * the API, Twilio credentials saved (and verified) at the fake Twilio, a number bought through
 * the API, a knowledge base with a pasted document, a SIP trunk. Only the call is inserted directly
 * (a real one needs a phone call).
 */
export async function ownedResources(
  app: TestApp,
  twilio: FakeTwilioRest,
  user: { cookie: string; organizationId: string },
  options: { upstreamUrl: string; tool: Record<string, unknown>; assistant: Record<string, unknown>; callerNumber?: string; knowledgeText?: string },
): Promise<Fixtures> {
  const as = async (method: "POST" | "PUT", url: string, payload: object) => {
    const res = await app.inject({ method, url, headers: { cookie: user.cookie }, payload });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const account = twilio.addAccount();
  const tool = await as("POST", "/api/tools", options.tool);
  const assistant = await as("POST", "/api/assistants", { ...options.assistant, tool_ids: [tool.id] });
  await as("PUT", "/api/credentials/twilio", { account_sid: account.sid, auth_token: account.authToken });
  const number = await as("POST", "/api/phone-numbers", { country_code: "US", assistant_id: assistant.id });
  const base = await as("POST", "/api/knowledge-bases", { name: `${String(options.assistant.name)} knowledge` });
  const document = await as("POST", `/api/knowledge-bases/${base.id}/documents`, { name: "Returns", text: options.knowledgeText ?? "Items may be returned within 30 days." });
  // Ingested before the suites start, so nothing of the owner's changes on its own while they run.
  for (let ready = false; !ready; await new Promise((r) => setTimeout(r, 100))) {
    const docs = (await app.inject({ method: "GET", url: `/api/knowledge-bases/${base.id}/documents`, headers: { cookie: user.cookie } })).json().data as { id: string; status: string }[];
    ready = docs.some((d) => d.id === document.id && (d.status === "ready" || d.status === "failed"));
  }
  const trunk = await as("POST", "/api/sip-trunks", { name: `${String(options.assistant.name)} trunk`, inbound_addresses: ["203.0.113.7"], outbound_uri: "sip:pbx.example.com" });
  const [call] = await app.ctx.db
    .insert(calls)
    .values({ organizationId: user.organizationId, assistantId: assistant.id, assistantName: String(options.assistant.name), callerNumber: options.callerNumber ?? null, logs: { isTest: false, transcript: [] } })
    .returning();
  return {
    toolId: tool.id,
    assistantId: assistant.id,
    callId: call!.id,
    phoneNumberId: number.id,
    twilioSid: account.sid,
    twilioToken: account.authToken,
    upstreamUrl: options.upstreamUrl,
    knowledgeBaseId: base.id,
    documentId: document.id,
    sipTrunkId: trunk.id,
  };
}
