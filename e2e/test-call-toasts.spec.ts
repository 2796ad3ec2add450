/**
 * The Test Call panel's remaining toasts (spec §8 "Calls"): a tool that could not run, a tool that
 * answered with success false, and a session the engine could not open.
 */
import { chromiumArgs } from "../playwright.config.ts";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, test, type TestServer } from "./fixtures.ts";
import { openTestCall, sendMessage, startTestCall, storeOpenAiKey } from "./test-call.helpers.ts";
import type { Page } from "@playwright/test";

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...chromiumArgs, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"],
  },
});

let upstream: ToolUpstream;
test.beforeAll(async () => {
  upstream = await startToolUpstream();
});
test.afterAll(async () => {
  await upstream.close();
});

async function assistantWithTool(page: Page, server: TestServer, name: string, endpoint: string) {
  const tool = await page.request.post(`${server.url}/api/tools`, {
    data: { name: "Order Status", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: endpoint, parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
  });
  expect(tool.ok()).toBe(true);
  const { id } = (await tool.json()) as { id: string };
  const assistant = await page.request.post(`${server.url}/api/assistants`, { data: { name, tool_ids: [id] } });
  expect(assistant.ok()).toBe(true);
}

async function callAndAsk(page: Page, name: string) {
  const panel = await startTestCall(page, name);
  await panel.getByRole("button", { name: "Turn microphone off" }).click();
  await sendMessage(panel, "Where is my order 42?");
  return panel;
}

test("a tool whose endpoint answers 503 shows the warning Tool completed with status 503", async ({ page, server, user: _user }) => {
  await storeOpenAiKey(page, server);
  await assistantWithTool(page, server, "Orders 503", `${upstream.origin}/status/503`);
  server.openai.script = { replies: [{ say: "Let me look.", toolCalls: [{ name: "order_status", arguments: { id: "42" } }] }, "The order service is down."] };
  await callAndAsk(page, "Orders 503");
  const warning = page.locator("[data-sonner-toast][data-type=warning]").filter({ hasText: "Tool completed with status 503" });
  await expect(warning).toBeVisible();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Failed to execute tool" })).toHaveCount(0);
});

test("a tool that cannot be reached shows the error Failed to execute tool", async ({ page, server, user: _user }) => {
  await storeOpenAiKey(page, server);
  // Nothing listens on port 9 (discard) here: the connection is refused, no HTTP status at all.
  await assistantWithTool(page, server, "Orders down", "http://127.0.0.1:9/orders");
  server.openai.script = { replies: [{ say: "Let me look.", toolCalls: [{ name: "order_status", arguments: { id: "42" } }] }, "I could not reach it."] };
  await callAndAsk(page, "Orders down");
  await expect(page.locator("[data-sonner-toast][data-type=error]").filter({ hasText: "Failed to execute tool" })).toBeVisible();
});

test("a session the provider refuses shows Failed to initialize session: <reason>", async ({ page, server, user: _user }) => {
  // Stored, but not a key the (fake) provider accepts: the engine's connection is refused.
  expect((await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: "sk-revoked-key" } })).ok()).toBe(true);
  await assistantWithTool(page, server, "Orders refused", `${upstream.origin}/json`);
  const panel = await openTestCall(page, "Orders refused");
  await panel.getByRole("button", { name: "Start Call" }).click();
  const toast = page.locator("[data-sonner-toast][data-type=error]").filter({ hasText: /Failed to initialize session: \S/ });
  await expect(toast).toBeVisible();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Call ended" })).toHaveCount(0);
  await expect(panel.getByRole("button", { name: "Start Call" })).toBeEnabled();
});
