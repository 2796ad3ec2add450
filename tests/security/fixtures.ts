import { calls } from "../../src/server/db/schema.ts";
import type { FakeTwilioRest } from "../fakes/twilio-rest.ts";
import type { TestApp } from "../harness.ts";
import type { Fixtures } from "./route-table.ts";

/**
 * One of everything a user can own, made the way a user makes it: a tool and an assistant through
 * the API, Twilio credentials saved (and verified) at the fake Twilio, a number bought through
 * the API. Only the call is inserted directly (a real one needs a phone call).
 */
export async function ownedResources(
  app: TestApp,
  twilio: FakeTwilioRest,
  user: { cookie: string; organizationId: string },
  options: { upstreamUrl: string; tool: Record<string, unknown>; assistant: Record<string, unknown>; callerNumber?: string },
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
  };
}
