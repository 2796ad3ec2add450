/**
 * A refused microphone: the browser's real denial (a fake device exists, but the permission
 * prompt is answered "block"), so the call must not start at all.
 */
import { eq } from "drizzle-orm";
import { chromiumArgs } from "../playwright.config.ts";
import { calls } from "../src/server/db/schema.ts";
import { expect, expectToast, test } from "./fixtures.ts";
import { openTestCall, storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...chromiumArgs, "--use-fake-device-for-media-stream", "--deny-permission-prompts"],
  },
});

test("a refused microphone: no call, and the transcript says why", async ({ page, server, user }) => {
  await storeOpenAiKey(page, server);
  const created = await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front Desk", first_message: "Hi there." } });
  expect(created.ok()).toBe(true);
  const callRequests: string[] = [];
  page.on("request", (req) => {
    if (req.url().includes("/api/calls/")) callRequests.push(req.url());
  });

  const panel = await openTestCall(page, "Front Desk");
  await panel.getByRole("button", { name: "Start Call" }).click();
  const line = panel.getByTestId("transcript-entry").filter({ hasText: "Microphone access is required for voice calls" });
  await expect(line).toHaveAttribute("data-type", "system");
  await expect(line).toHaveAttribute("data-error", "true");
  await expectToast(page, "Failed to start call");
  await expect(panel.getByTestId("call-status")).toHaveText("Microphone access denied");
  await expect(panel.getByRole("button", { name: "Start Call" })).toBeEnabled();
  await expect(panel.getByRole("textbox", { name: "Message" })).toBeDisabled();

  // Neither a test session nor a call record.
  expect(callRequests).toEqual([]);
  const organizationId = await userIdOf(server, user.email);
  expect(await server.db.select().from(calls).where(eq(calls.organizationId, organizationId))).toHaveLength(0);
});
