import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { openLiveSocket, sessionIdFor, setUpLiveOwner } from "../../../../tests/fakes/realtime-app.ts";
import { callLogsSchema } from "../../../shared/calls.ts";
import { calls } from "../../db/schema.ts";

/**
 * PostgreSQL's jsonb refuses U+0000 (and unpaired surrogates cannot be stored
 * as UTF-8). Text of that kind in a typed message or the model's reply must not keep the call
 * record "In progress": it is cleaned before the final write, in the real database.
 */
const file = setUpLiveOwner("sk-clean-test");

describe("text the database refuses", () => {
  it("a typed message and a reply with U+0000 and a lone surrogate: the record closes with the cleaned text", async () => {
    file.fake.script = { replies: ["Got\u0000 it \uDC00done."] };
    const browser = await openLiveSocket(file.live, file.owner, await sessionIdFor(file.live.app, file.owner, file.assistantId));
    await browser.until(() => browser.of("started").length > 0, "call record");
    await browser.untilStatus("Assistant finished responding");
    const callId = browser.of("started")[0]!.callId;
    browser.sendText("Order\u0000 42 \uD800please");
    await browser.until(() => browser.statuses().filter((s) => s === "Assistant finished responding").length >= 2, "the reply");
    browser.end();
    await browser.until(() => browser.of("ended").length > 0, "ended");
    await browser.untilClosed();
    expect(browser.errors()).toEqual([]);

    const [row] = await file.live.db.select().from(calls).where(eq(calls.id, callId));
    expect(row?.endTime).not.toBeNull();
    expect(row?.endedReason).toBe("User ended call");
    const logs = callLogsSchema.parse(row!.logs);
    expect(logs.transcript.map((e) => e.content)).toEqual(["Hello, this is Ava. How can I help?", "Order 42 \uFFFDplease", "Got it \uFFFDdone."]);
  });
});
