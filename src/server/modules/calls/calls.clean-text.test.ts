import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../../../../tests/fakes/fake-realtime.ts";
import { createAssistant, openLiveSocket, sessionIdFor, signUpCaller, startLiveApp, type Caller, type LiveApp } from "../../../../tests/fakes/realtime-app.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

/**
 * PostgreSQL's jsonb refuses U+0000 (and unpaired surrogates cannot be stored
 * as UTF-8). Text of that kind in a typed message or the model's reply must not keep the call
 * record "In progress": it is cleaned before the final write, in the real database.
 */
let fake: FakeRealtime;
let live: LiveApp;
let ada: Caller;
let assistantId: string;

beforeAll(async () => {
  fake = await startFakeRealtime({ apiKey: "sk-clean-test" });
  live = await startLiveApp(fake);
  ada = await signUpCaller(live.app, fake.apiKey);
  assistantId = (await createAssistant(live.app, ada)).id;
});
afterAll(async () => {
  await live.app.close();
  await fake.close();
});

describe("text the database refuses", () => {
  it("a typed message and a reply with U+0000 and a lone surrogate: the record closes with the cleaned text", async () => {
    fake.script = { replies: ["Got\u0000 it \uDC00done."] };
    const browser = await openLiveSocket(live, ada, await sessionIdFor(live.app, ada, assistantId));
    await browser.until(() => browser.of("started").length > 0, "call record");
    await browser.untilStatus("Assistant finished responding");
    const callId = browser.of("started")[0]!.callId;
    browser.sendText("Order\u0000 42 \uD800please");
    await browser.until(() => browser.statuses().filter((s) => s === "Assistant finished responding").length >= 2, "the reply");
    browser.end();
    await browser.until(() => browser.of("ended").length > 0, "ended");
    await browser.untilClosed();
    expect(browser.errors()).toEqual([]);

    const [row] = await live.db.select().from(calls).where(eq(calls.id, callId));
    expect(row?.endTime).not.toBeNull();
    expect(row?.endedReason).toBe("User ended call");
    const logs = callLogsSchema.parse(row!.logs);
    expect(logs.transcript.map((e) => e.content)).toEqual(["Hello, this is Ava. How can I help?", "Order 42 \uFFFDplease", "Got it \uFFFDdone."]);
  });
});
