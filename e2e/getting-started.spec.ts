import { eq } from "drizzle-orm";
import { calls, credentials, phoneNumbers, user as users } from "../src/server/db/schema.ts";
import { GETTING_STARTED_TEXTS as T } from "../src/shared/getting-started.ts";
import { expect, test } from "./fixtures.ts";

test("the Assistants page's checklist ticks each first-hour step from real data, links to where it is done, and goes once all are done", async ({ page, server, user }) => {
  await page.goto("/assistants");
  const checklist = page.getByTestId("getting-started");
  await expect(checklist).toContainText(T.title);
  await expect(checklist).toContainText("0 of 6 done");
  await expect(checklist.locator("li")).toHaveText([
    new RegExp(T.steps.openai_key.title),
    new RegExp(T.steps.assistant.title),
    new RegExp(T.steps.test_call.title),
    new RegExp(T.steps.twilio.title),
    new RegExp(T.steps.phone_number.title),
    new RegExp(T.steps.real_call.title),
  ]);
  await expect(checklist.locator('[data-step="phone_number"]').getByRole("link", { name: T.steps.phone_number.action })).toHaveAttribute("href", "/phone-numbers");

  // The first step is done elsewhere (Settings); back here it is ticked.
  await checklist.locator('[data-step="openai_key"]').getByRole("link", { name: T.steps.openai_key.action }).click();
  await expect(page).toHaveURL(/\/settings#openai-key$/);
  expect((await page.request.put("/api/credentials/openai_api_key", { data: { value: server.openai.apiKey } })).ok()).toBe(true);
  await page.goto("/assistants");
  await expect(checklist.locator('[data-step="openai_key"]')).toHaveAttribute("data-done", "true");
  await expect(checklist).toContainText("1 of 6 done");

  // "Create an assistant" opens this page's own form.
  await checklist.locator('[data-step="assistant"]').getByRole("button", { name: T.steps.assistant.action }).click();
  await expect(page.getByRole("dialog", { name: "Create Assistant" })).toBeVisible();
  await page.keyboard.press("Escape");

  // Everything else done: the checklist goes.
  const [row] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  const organizationId = row!.id;
  const created = await page.request.post("/api/assistants", { data: { name: "Ava", instructions: "You are Ava.", first_message: "Hello." } });
  expect(created.status()).toBe(201);
  const assistant = (await created.json()) as { id: string };
  // Twilio's step is ticked only once Twilio accepted the credentials.
  await server.db.insert(credentials).values([
    { organizationId, name: "twilio_account_sid", valueEncrypted: "sealed", verified: true },
    { organizationId, name: "twilio_auth_token", valueEncrypted: "sealed", verified: true },
  ]);
  await server.db.insert(phoneNumbers).values({ organizationId, phoneNumber: "+15550111", countryCode: "US", status: "active", providerSid: `PN${"4".repeat(32)}` });
  await server.db.insert(calls).values([
    { organizationId, assistantId: assistant.id, logs: { isTest: true, transcript: [] } },
    { organizationId, assistantId: assistant.id, logs: { isTest: false, transcript: [] } },
  ]);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Assistants" })).toBeVisible();
  await expect(page.getByRole("cell", { name: "Ava" }).first()).toBeVisible();
  await expect(checklist).toHaveCount(0);
});
