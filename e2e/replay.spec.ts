/**
 * Learning from real calls in the browser: a finished call's details replay it against the
 * assistant's draft (the fake Responses API plays the draft) and show both conversations side
 * by side; "Save as test" then makes it a scenario with the rubric the user writes.
 */
import { eq } from "drizzle-orm";
import type { TranscriptEntry } from "../src/shared/calls.ts";
import { calls, scenarios } from "../src/server/db/schema.ts";
import { startFakeResponses } from "../tests/fakes/fake-responses.ts";
import { AxeBuilder } from "@axe-core/playwright";
import { expect, expectToast, test } from "./fixtures.ts";
import { storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

test.use({ timezoneId: "UTC" });

const TRANSCRIPT: TranscriptEntry[] = [
  { type: "assistant", content: "Hello, this is Ava. How can I help?", timestamp: "2026-03-14T15:04:06.000Z" },
  { type: "user", content: "Can I change the delivery address of order 42?", timestamp: "2026-03-14T15:04:12.000Z" },
  { type: "assistant", content: "Sorry, I cannot do that.", timestamp: "2026-03-14T15:04:16.000Z" },
];

test("replay a call against the draft side by side, then save it as a test", async ({ page, server, user }) => {
  // The Responses API on the fake OpenAI's base URL (one OPENAI_BASE_URL, as the app has one).
  const responses = await startFakeResponses({ apiKey: server.openai.apiKey, serveOn: server.openai });
  try {
    await storeOpenAiKey(page, server);
    const created = await page.request.post(`${server.url}/api/assistants`, {
      data: { name: "Ava", first_message: "Hello, this is Ava. How can I help?", instructions: "Offer a callback when you cannot help." },
    });
    expect(created.ok()).toBe(true);
    const assistant = (await created.json()) as { id: string };
    const organizationId = await userIdOf(server, user.email);
    const [call] = await server.db
      .insert(calls)
      .values({ organizationId, assistantId: assistant.id, assistantName: "Ava", startTime: new Date("2026-03-14T15:04:05Z"), endTime: new Date("2026-03-14T15:05:00Z"), endedReason: "Caller hung up", logs: { isTest: false, transcript: TRANSCRIPT, toolsUsed: [] } })
      .returning();
    responses.enqueue({ kind: "answer", text: "I can't change it myself, but I can have a colleague call you back today." });

    await page.goto("/calls");
    await page.getByTestId("call-row").first().click();
    const details = page.getByRole("dialog", { name: "Call Details" });
    await details.getByRole("button", { name: "Replay against draft" }).click();

    const replay = page.getByRole("dialog", { name: "Replay against draft" });
    const turns = replay.getByTestId("replay-turn");
    await expect(turns).toHaveCount(2);
    const asked = turns.nth(1);
    await expect(asked).toContainText("Can I change the delivery address of order 42?");
    await expect(asked.getByLabel("Original call")).toContainText("Sorry, I cannot do that.");
    await expect(asked.getByLabel("Draft")).toContainText("I can have a colleague call you back today.");
    expect(responses.accepted).toHaveLength(1);
    // The dialog itself (what lies under its overlay is the Calls page's, checked by the accessibility spec).
    const axe = await new AxeBuilder({ page }).include('[data-testid="call-replay"]').withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
    expect(axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
    await replay.getByRole("button", { name: "Close" }).click();

    await details.getByRole("button", { name: "Save as test" }).click();
    const save = page.getByRole("dialog", { name: "Save this call as a test" });
    await save.getByLabel("Name").fill("Address change");
    await save.getByLabel("Success criteria").fill("Offers a callback when the address cannot be changed.");
    await save.getByRole("button", { name: "Save as test" }).click();
    await expectToast(page, "Saved as a test of the assistant");
    await expect(save).toHaveCount(0);
    const [saved] = await server.db.select().from(scenarios).where(eq(scenarios.sourceCallId, call!.id));
    expect(saved).toMatchObject({ name: "Address change", source: "call", callerTurns: ["Can I change the delivery address of order 42?"] });
  } finally {
    server.openai.rest = null;
  }
});
