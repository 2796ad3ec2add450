/** Shared steps of the Test Call specs: an OpenAI key, a tool on a local upstream, an assistant, the panel. */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { calls, user as users } from "../src/server/db/schema.ts";
import { callLogsSchema } from "../src/shared/calls.ts";
import type { ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, expectToast, type TestServer } from "./fixtures.ts";

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

/** openTestCall, then Start Call, waiting for the toast that says it started. */
export async function startTestCall(page: Page, assistantName: string) {
  const panel = await openTestCall(page, assistantName);
  await panel.getByRole("button", { name: "Start Call" }).click();
  await expectToast(page, "Call started successfully");
  return panel;
}

/** Types `text` in the Test Call's message box and sends it (Enter). */
export async function sendMessage(panel: Locator, text: string) {
  const box = panel.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
}

/**
 * Chromium's fake microphone playing `says`, spoken by espeak-ng and made what a microphone
 * delivers by sox (48 kHz mono 16-bit), with `silenceSeconds` of silence after it, like a caller
 * waiting for the answer (Chromium plays the file in a loop: the line comes again after that);
 * `args` for the launch options, `remove` for afterAll. Written when a worker loads the spec (the
 * runner's own process only lists the tests and needs no file).
 */
export function callerMicrophone(says: string, silenceSeconds = 1): { args: string[]; remove: () => void } {
  let dir = "";
  let wav = "caller.wav";
  if (process.env.TEST_WORKER_INDEX !== undefined) {
    dir = mkdtempSync(join(tmpdir(), "switchboard-test-call-"));
    const spoken = join(dir, "spoken.wav");
    wav = join(dir, "caller.wav");
    execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", spoken, says]);
    execFileSync("sox", [spoken, "-r", "48000", "-c", "1", "-b", "16", wav, "pad", "0", String(silenceSeconds)]);
  }
  return {
    args: ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wav}`, "--autoplay-policy=no-user-gesture-required"],
    remove: () => dir && rmSync(dir, { recursive: true, force: true }),
  };
}

/** Saves a provider in Settings → Providers through the API; its id. */
export async function addProvider(page: Page, server: TestServer, data: Record<string, unknown>): Promise<string> {
  const res = await page.request.post(`${server.url}/api/providers`, { data });
  expect(res.status(), await res.text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** Moves the assistant onto a voice `engine`. */
export async function useEngine(page: Page, server: TestServer, assistantId: string, engine: Record<string, unknown>) {
  const res = await page.request.patch(`${server.url}/api/assistants/${assistantId}`, { data: { voice_engine: engine } });
  expect(res.ok(), await res.text()).toBe(true);
}

/**
 * Starts a call on the weather assistant in the panel; the greeting, the caller's words, the
 * weather tool's call and the answer appear; the call is ended.
 */
export async function talkThrough(page: Page, assistantName: string, conversation: { says: string; answer: string }) {
  const panel = await openTestCall(page, assistantName);
  const entries = panel.getByTestId("transcript-entry");
  await panel.getByRole("button", { name: "Start Call" }).click();
  await expectToast(page, "Call started successfully");
  await expect(entries.filter({ hasText: GREETING })).toHaveAttribute("data-type", "assistant");
  await expect(entries.filter({ hasText: conversation.says })).toHaveAttribute("data-type", "user");
  await expect(entries.filter({ hasText: "Calling tool Get Weather" })).toHaveAttribute("data-type", "tool-request");
  await expect(entries.filter({ hasText: conversation.answer })).toHaveAttribute("data-type", "assistant");
  await panel.getByRole("button", { name: "End Call" }).click();
  await expectToast(page, "Call ended");
  await expect(panel.getByTestId("call-status")).toHaveText("Call completed");
}

/** The user's organisation's call once it has ended, with its logs. */
export async function lastCallOf(server: TestServer, email: string) {
  const organizationId = await userIdOf(server, email);
  await expect.poll(async () => (await server.db.select().from(calls).where(eq(calls.organizationId, organizationId)))[0]?.endTime ?? null).not.toBeNull();
  const [row] = await server.db.select().from(calls).where(eq(calls.organizationId, organizationId));
  return { row: row!, logs: callLogsSchema.parse(row!.logs) };
}
