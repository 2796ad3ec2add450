import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, sessionIdFor, type Caller } from "../../../../tests/fakes/realtime-app.ts";
import { insertPhoneNumber, phoneOwner, startPhoneApp, TEST_AUTH_TOKEN, type PhoneApp } from "../../../../tests/fakes/twilio-app.ts";
import { TwilioCaller } from "../../../../tests/fakes/twilio-caller.ts";
import { calls } from "../../db/schema.ts";

/**
 * Which version a call runs, seen where it matters: the instructions and greeting the fake
 * OpenAI Realtime server receives. A phone call runs the live version while a different draft
 * exists; a browser Test Call runs the draft; a pinned number runs its pinned version.
 */

const TO = "+15550177";
let fake: FakeRealtime;
let app: PhoneApp;
let owner: Caller;
let assistantId: string;
let numberId: string;

const patch = (url: string, payload: object) => app.app.inject({ method: "PATCH", url, headers: { cookie: owner.cookie }, payload });
const post = (url: string, payload: object) => app.app.inject({ method: "POST", url, headers: { cookie: owner.cookie }, payload });

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-versions-test" });
  app = await startPhoneApp(fake);
  owner = await phoneOwner(app, fake.apiKey);
  // v1 on creation; v2 published; then a draft that is never published.
  assistantId = (await createAssistant(app.app, owner, { instructions: "Version one.", first_message: "Hello from v1." })).id;
  await patch(`/api/assistants/${assistantId}`, { instructions: "Version two.", first_message: "Hello from v2." });
  expect((await post(`/api/assistants/${assistantId}/publish`, { note: "second" })).statusCode).toBe(201);
  await patch(`/api/assistants/${assistantId}`, { instructions: "Draft in progress.", first_message: "Hello from the draft." });
  numberId = await insertPhoneNumber(app, owner, TO, assistantId);
});
afterAll(async () => {
  await app.app.close();
  await fake.close();
});

async function recordOf(where: ReturnType<typeof eq>) {
  for (const started = Date.now(); Date.now() - started < 5000; await new Promise((r) => setTimeout(r, 20))) {
    const [row] = await app.db.select().from(calls).where(where);
    if (row?.endTime) return row;
  }
  throw new Error("the call was not finalised");
}

/** A phone call: what the provider session was told, and the record's version. */
async function phoneCall() {
  fake.script = { userSays: [] };
  const index = fake.connections.length;
  const call = await TwilioCaller.dial({ origin: app.origin, authToken: TEST_AUTH_TOKEN, to: TO, from: "+15559870" });
  await call.openStream();
  const conn = await fake.connection(index);
  const update = await conn.waitFor("session.update");
  const greeting = (await conn.waitFor("response.create"))["response"] as { instructions: string };
  await call.hangUp();
  const row = await recordOf(eq(calls.providerCallSid, call.callSid));
  return { instructions: (update["session"] as { instructions: string }).instructions, greeting: greeting.instructions, version: row.assistantVersion };
}

describe("the version a call runs", () => {
  it("a phone call runs the live version's instructions and first message while a different draft exists", async () => {
    const call = await phoneCall();
    expect(call.instructions).toContain("Version two.");
    expect(call.instructions).not.toContain("Draft in progress.");
    expect(call.greeting).toContain("Hello from v2.");
    expect(call.version).toBe(2);
  });

  it("a number pinned to v1 runs v1; unpinned it runs the latest again", async () => {
    expect((await patch(`/api/phone-numbers/${numberId}`, { assistant_version: 1 })).statusCode).toBe(200);
    const pinned = await phoneCall();
    expect(pinned.instructions).toContain("Version one.");
    expect(pinned.greeting).toContain("Hello from v1.");
    expect(pinned.version).toBe(1);
    await patch(`/api/phone-numbers/${numberId}`, { assistant_version: null });
    expect((await phoneCall()).version).toBe(2);
  });

  it("after a roll back to v1 the number runs v1's content as v3", async () => {
    expect((await post(`/api/assistants/${assistantId}/rollback`, { version: 1 })).statusCode).toBe(201);
    const call = await phoneCall();
    expect(call.instructions).toContain("Version one.");
    expect(call.version).toBe(3);
  });

  it("a browser Test Call runs the draft, and its record says so (no version)", async () => {
    fake.script = { userSays: [] };
    const port = new URL(app.origin).port;
    const index = fake.connections.length;
    const browser = await openLiveSocket(
      { ...app, liveUrl: (id: string) => `ws://127.0.0.1:${port}/api/calls/live?session_id=${encodeURIComponent(id)}` },
      owner,
      await sessionIdFor(app.app, owner, assistantId),
    );
    const conn = await fake.connection(index);
    const update = await conn.waitFor("session.update");
    expect((update["session"] as { instructions: string }).instructions).toContain("Draft in progress.");
    expect(((await conn.waitFor("response.create"))["response"] as { instructions: string }).instructions).toContain("Hello from the draft.");
    await browser.until(() => browser.of("started").length > 0, "call record");
    const callId = browser.of("started")[0]!.callId;
    browser.end();
    expect((await recordOf(eq(calls.id, callId))).assistantVersion).toBeNull();
  });
});
