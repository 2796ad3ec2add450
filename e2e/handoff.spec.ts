/**
 * Hand-off in the browser: transfer destinations and the call-control switches in
 * the assistant form and details panel, and the built-ins in a Test Call — end_call ends the
 * call once the goodbye has played; transfer_call shows where the call would go and ends it.
 */
import { and, eq } from "drizzle-orm";
import type { Page } from "@playwright/test";
import { chromiumArgs } from "../playwright.config.ts";
import { calls } from "../src/server/db/schema.ts";
import { expect, expectToast, test, type TestServer } from "./fixtures.ts";
import { sendMessage, startTestCall, storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...chromiumArgs, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"],
  },
});

const billing = { label: "Billing team", phone_number: "+442071234567", when_to_use: "When the caller disputes a charge" };

async function createAssistant(page: Page, server: TestServer, data: Record<string, unknown>) {
  const res = await page.request.post(`${server.url}/api/assistants`, { data });
  expect(res.ok()).toBe(true);
}

test("transfer destinations are validated in the form, saved, and shown in the details panel with the switches", async ({ page, server, user: _user }) => {
  await createAssistant(page, server, { name: "Front Desk" });
  await page.goto("/assistants");
  await page.getByTestId("assistant-row").filter({ hasText: "Front Desk" }).getByRole("cell").first().click();
  const details = page.getByRole("dialog", { name: "Front Desk" });
  await expect(details.locator('[data-field="Transfer destinations"]')).toContainText("No transfer destinations");
  await expect(details.locator('[data-field="Call controls"]')).toContainText("Assistant can end the call: On");
  await details.getByRole("button", { name: "Edit" }).click();

  const form = page.getByRole("dialog", { name: "Edit Assistant" });
  await form.getByRole("button", { name: "Add transfer destination" }).click();
  const destination = form.getByTestId("transfer-destination");
  await destination.getByLabel("Label").fill(billing.label);
  await destination.getByLabel("Phone number").fill("020 7123 4567");
  await form.getByRole("button", { name: "Save draft" }).click();
  await expect(destination.getByText("Phone number must be in E.164 format, e.g. +442071234567")).toBeVisible();
  await expect(destination.getByText("Say when the assistant should use this destination")).toBeVisible();

  await destination.getByLabel("Phone number").fill("+44 20 7123 4567");
  await destination.getByLabel("When to use").fill(billing.when_to_use);
  await form.getByRole("checkbox", { name: "Keypad input" }).uncheck();
  await form.getByRole("button", { name: "Save draft" }).click();
  await expectToast(page, "Draft saved — callers hear v1 until you publish it");

  const updated = page.getByRole("dialog", { name: "Front Desk" });
  await expect(updated.locator('[data-field="Transfer destinations"]')).toContainText("Billing team (+442071234567): When the caller disputes a charge");
  await expect(updated.locator('[data-field="Call controls"]')).toContainText("Keypad input: Off");

  // A PBX's queue, given as a SIP address.
  await updated.getByRole("button", { name: "Edit" }).click();
  await form.getByRole("button", { name: "Add transfer destination" }).click();
  const queue = form.getByTestId("transfer-destination").nth(1);
  await queue.getByLabel("Label").fill("Sales queue");
  await queue.getByLabel("Phone number or SIP address").fill("sip:sales pbx.example.com");
  await queue.getByLabel("When to use").fill("When the caller wants to buy");
  await form.getByRole("button", { name: "Save draft" }).click();
  await expect(queue.getByText("SIP address must look like sip:queue@pbx.example.com")).toBeVisible();
  await queue.getByLabel("Phone number or SIP address").fill("sip:sales@pbx.example.com");
  await form.getByRole("button", { name: "Save draft" }).click();
  await expectToast(page, "Draft saved — callers hear v1 until you publish it");
  await expect(page.getByRole("dialog", { name: "Front Desk" }).locator('[data-field="Transfer destinations"]')).toContainText("Sales queue (sip:sales@pbx.example.com): When the caller wants to buy");
});

test.describe("built-in functions in a Test Call", () => {
  test("end_call: the goodbye plays, then the call ends with 'Assistant ended call'; the call is listed as built-in", async ({ page, server, user }) => {
    await storeOpenAiKey(page, server);
    await createAssistant(page, server, { name: "Goodbye Bot" });
    server.openai.script = { replies: [{ say: "Goodbye, have a nice day!", audioMs: 1200, toolCalls: [{ name: "end_call", arguments: {} }] }] };
    const panel = await startTestCall(page, "Goodbye Bot");
    await sendMessage(panel, "That's all, thanks.");
    const entries = panel.getByTestId("transcript-entry");
    const request = entries.filter({ hasText: "Calling built-in function end_call" });
    await expect(request).toHaveAttribute("data-type", "tool-request");
    await expect(request.getByText("built-in", { exact: true })).toBeVisible();
    await expect(panel.getByRole("button", { name: "Start Call" })).toBeVisible({ timeout: 15_000 });

    const organizationId = await userIdOf(server, user.email);
    await expect
      .poll(async () => (await server.db.select().from(calls).where(and(eq(calls.organizationId, organizationId)))).map((r) => r.endedReason))
      .toEqual(["Assistant ended call"]);
  });

  test("transfer_call: a system line says where the call would go, and the call ends with that reason", async ({ page, server, user }) => {
    await storeOpenAiKey(page, server);
    await createAssistant(page, server, { name: "Switch Desk", transfer_destinations: [billing] });
    const summary = "Caller disputes a charge on invoice 42.";
    server.openai.script = {
      replies: [{ say: "I'll put you through to billing.", audioMs: 800, toolCalls: [{ name: "transfer_call", arguments: { destination: "Billing team", summary } }] }],
    };
    const panel = await startTestCall(page, "Switch Desk");
    await sendMessage(panel, "I want to dispute a charge.");
    const line = `Would transfer to Billing team (+442071234567) with: ${summary}`;
    await expect(panel.getByTestId("transcript-entry").filter({ hasText: line })).toHaveAttribute("data-type", "system");
    await expect(panel.getByRole("button", { name: "Start Call" })).toBeVisible({ timeout: 15_000 });
    const organizationId = await userIdOf(server, user.email);
    await expect.poll(async () => (await server.db.select().from(calls).where(eq(calls.organizationId, organizationId))).map((r) => r.endedReason)).toEqual([line]);
  });
});
