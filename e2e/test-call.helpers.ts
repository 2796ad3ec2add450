/** Shared steps of the Test Call specs: an OpenAI key, a tool on a local upstream, an assistant, the panel. */
import type { Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { user as users } from "../src/server/db/schema.ts";
import type { ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, type TestServer } from "./fixtures.ts";

export const GREETING = "Hello, this is the weather desk. How can I help you today?";

export async function userIdOf(server: TestServer, email: string): Promise<string> {
  const [row] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row!.id;
}

export async function storeOpenAiKey(page: Page, server: TestServer) {
  const res = await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: server.openai.apiKey } });
  expect(res.ok()).toBe(true);
}

/** A weather tool on the local upstream and an assistant using it, through the API. */
export async function createWeatherAssistant(page: Page, server: TestServer, upstream: ToolUpstream) {
  const tool = await page.request.post(`${server.url}/api/tools`, {
    data: {
      name: "Get Weather",
      description: "Current weather for a city",
      type: "API",
      http_method: "GET",
      parameter_format: "standard",
      end_point_url: `${upstream.origin}/weather`,
      parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
    },
  });
  expect(tool.ok()).toBe(true);
  const { id: toolId } = (await tool.json()) as { id: string };
  const assistant = await page.request.post(`${server.url}/api/assistants`, {
    data: { name: "Weather Desk", first_message: GREETING, instructions: "Answer weather questions with the Get Weather tool.", tool_ids: [toolId] },
  });
  expect(assistant.ok()).toBe(true);
  return (await assistant.json()) as { id: string; name: string };
}

export async function openTestCall(page: Page, assistantName: string) {
  await page.goto("/assistants");
  await page.getByTestId("assistant-row").filter({ hasText: assistantName }).getByRole("button", { name: "Test call" }).click();
  const panel = page.getByRole("dialog", { name: `Test Call: ${assistantName}` });
  await expect(panel).toBeVisible();
  return panel;
}
