/**
 * The Test Call panel end to end: Chromium's fake microphone plays a WAV spoken by espeak-ng,
 * the real server runs the call engine against the fake OpenAI Realtime server, and a tool
 * reaches a local upstream. The call record is then read from the database.
 */
import { eq } from "drizzle-orm";
import { chromiumArgs } from "../playwright.config.ts";
import { calls } from "../src/server/db/schema.ts";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, expectToast, test } from "./fixtures.ts";
import { GREETING, callerMicrophone, createWeatherAssistant, openTestCall, storeOpenAiKey, userIdOf } from "./test-call.helpers.ts";

const CALLER_SAYS = "What is the weather in Paris?";

const audio = callerMicrophone(CALLER_SAYS);
test.afterAll(audio.remove);

test.use({ launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium", args: [...chromiumArgs, ...audio.args] } });

test.describe("with a microphone", () => {
  let upstream: ToolUpstream;
  test.beforeAll(async () => {
    upstream = await startToolUpstream();
  });
  test.afterAll(async () => {
    await upstream.close();
  });

  test("a test call: greeting, spoken question, tool call, typed message, microphone toggle, record", async ({ page, server, user }) => {
    await storeOpenAiKey(page, server);
    const assistant = await createWeatherAssistant(page, server, upstream);
    server.openai.script = {
      userSays: [CALLER_SAYS],
      // Long enough that the greeting has played before the caller is heard.
      speechMs: 1500,
      replies: [
        // The answer to the spoken question: a few seconds of voice, then the tool call.
        { say: "Let me check the weather in Paris for you.", audioMs: 4000, toolCalls: [{ name: "get_weather", arguments: { city: "Paris" } }] },
        (ctx) => {
          const last = ctx.conversation[ctx.conversation.length - 1];
          return last?.type === "function_call_output" ? "The weather service answered for Paris." : "Sorry?";
        },
        "You're welcome. Goodbye!",
      ],
    };

    const panel = await openTestCall(page, assistant.name);
    const status = panel.getByTestId("call-status");
    const entries = panel.getByTestId("transcript-entry");
    await expect(status).toHaveText("Not connected");
    await expect(panel.getByRole("textbox", { name: "Message" })).toHaveAttribute("placeholder", "Start call to begin testing");
    await expect(panel.getByRole("textbox", { name: "Message" })).toBeDisabled();

    // The speaking indicator shows only while the reply plays (a second or so, which a check
    // after the reply's line can miss): a watcher in the page notes it however briefly it shows.
    await page.evaluate((question) => {
      const seen = window as unknown as { spokeAfterQuestion?: boolean };
      new MutationObserver(() => {
        const asked = document.querySelector('[role="dialog"]')?.textContent?.includes(question);
        if (asked && document.querySelector('[data-testid="voice-activity"]')?.textContent?.includes("Assistant is speaking")) seen.spokeAfterQuestion = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    }, CALLER_SAYS);
    await panel.getByRole("button", { name: "Start Call" }).click();
    await expectToast(page, "Call started successfully");
    await expect(panel.getByRole("button", { name: "End Call" })).toBeVisible();
    await expect(panel.getByRole("textbox", { name: "Message" })).toHaveAttribute("placeholder", "Type a message...");

    // The first message: its line, and the status of the response that spoke it.
    await expect(entries.filter({ hasText: GREETING })).toHaveAttribute("data-type", "assistant");
    await expect(status).toHaveText(/Assistant finished responding|Assistant is responding/);

    // The microphone's audio reaches the provider, which hears the question.
    await expect(entries.filter({ hasText: CALLER_SAYS })).toHaveAttribute("data-type", "user");
    const reply = entries.filter({ hasText: "Let me check the weather in Paris for you." });
    await expect(reply).toHaveAttribute("data-type", "assistant");
    // Its audio arrives and plays: the speaking indicator follows the speaker.
    await expect.poll(() => page.evaluate(() => (window as unknown as { spokeAfterQuestion?: boolean }).spokeAfterQuestion ?? false)).toBe(true);

    // The tool call and the upstream's answer.
    const request = entries.filter({ hasText: "Calling tool Get Weather" });
    await expect(request).toHaveAttribute("data-type", "tool-request");
    await expect(request.getByText("Parameters")).toBeVisible();
    await expect(request.locator("pre")).toContainText('"city": "Paris"');
    const response = entries.filter({ hasText: "Tool Get Weather completed with status 200" });
    await expect(response).toHaveAttribute("data-type", "tool-response");
    await expect(response.getByText("Result")).toBeVisible();
    await expect(response.locator("pre")).toContainText('"path": "/weather"');
    await expect(response.locator("pre")).toContainText('"city": "Paris"');
    await expect(entries.filter({ hasText: "The weather service answered for Paris." })).toHaveAttribute("data-type", "assistant");
    expect(upstream.requests.filter((r) => r.path === "/weather").map((r) => r.query)).toEqual([{ city: "Paris" }]);

    // A typed message: Shift+Enter is a new line, Enter sends.
    const message = panel.getByRole("textbox", { name: "Message" });
    await message.fill("   ");
    await expect(panel.getByRole("button", { name: "Send message" })).toBeDisabled();
    await message.fill("Thanks");
    await message.press("Shift+Enter");
    await message.pressSequentially(" a lot");
    await expect(message).toHaveValue("Thanks\n a lot");
    await message.press("Enter");
    await expect(message).toHaveValue("");
    await expect(entries.filter({ hasText: /Thanks\s+a lot/ })).toHaveAttribute("data-type", "user");
    await expect(entries.filter({ hasText: "You're welcome. Goodbye!" })).toHaveAttribute("data-type", "assistant");

    // The microphone toggle: off stops the audio going out, on resumes it.
    const connection = await server.openai.connection(server.openai.connections.length - 1);
    const appended = () => connection.receivedOf("input_audio_buffer.append").length;
    await panel.getByRole("button", { name: "Turn microphone off" }).click();
    await expectToast(page, "Microphone deactivated");
    await expect(panel.getByText("Microphone is off")).toBeVisible();
    const whileMuted = appended();
    // About six 4096-sample chunks would go out in this second with the microphone on.
    await page.waitForTimeout(1000);
    expect(appended() - whileMuted).toBeLessThanOrEqual(1);
    await panel.getByRole("button", { name: "Turn microphone on" }).click();
    await expectToast(page, "Microphone activated");
    await expect.poll(appended).toBeGreaterThan(whileMuted + 1);

    // The duration ticks while the call is live.
    await expect(panel.getByTestId("call-figures")).toHaveText(/\d+:\d{2}/);

    await panel.getByRole("button", { name: "End Call" }).click();
    await expectToast(page, "Call ended");
    await expect(status).toHaveText("Call completed");
    await expect(entries.last()).toHaveText(/Session ended normally/);
    await expect(panel.getByTestId("call-figures")).toContainText("$0.05");
    await expect(panel.getByRole("button", { name: "Start Call" })).toBeVisible();
    await expect(panel.getByRole("textbox", { name: "Message" })).toHaveAttribute("placeholder", "Start call to begin testing");

    // The record: written by the server, finished, priced, flagged as a test.
    const organizationId = await userIdOf(server, user.email);
    const [record] = await server.db.select().from(calls).where(eq(calls.organizationId, organizationId));
    expect(record).toBeDefined();
    expect(record!.assistantId).toBe(assistant.id);
    expect(record!.endTime).not.toBeNull();
    expect(record!.endedReason).toBe("User ended call");
    expect(record!.cost).toBe(0.05);
    const logs = record!.logs as { isTest: boolean; transcript: Array<{ type: string; content: string }>; toolsUsed: Array<{ name: string }> };
    expect(logs.isTest).toBe(true);
    expect(logs.transcript.map((e) => e.type)).toEqual(expect.arrayContaining(["assistant", "user", "tool-request", "tool-response"]));
    expect(logs.transcript.find((e) => e.type === "user")?.content).toBe(CALLER_SAYS);
    expect(logs.toolsUsed.map((t) => t.name)).toEqual(["Get Weather"]);
  });

  test("connecting, then closing the panel ends the call with reason Sheet closed", async ({ page, server, user }) => {
    await storeOpenAiKey(page, server);
    const assistant = await createWeatherAssistant(page, server, upstream);
    server.openai.script = {};
    // A slow server: the connecting state stays on screen long enough to look at.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route("**/api/calls/test-session", async (route) => {
      await held;
      await route.continue();
    });
    const panel = await openTestCall(page, assistant.name);
    await panel.getByRole("button", { name: "Start Call" }).click();
    await expect(panel.getByRole("button", { name: "Connecting..." })).toBeDisabled();
    await expect(panel.getByTestId("call-status")).toHaveText("Connecting...");
    await expect(panel.getByRole("textbox", { name: "Message" })).toHaveAttribute("placeholder", "Connecting...");
    await expect(panel.getByRole("textbox", { name: "Message" })).toBeDisabled();
    release();

    await expect(panel.getByRole("button", { name: "End Call" })).toBeEnabled();
    await expect(panel.getByTestId("call-status")).toHaveText(/Connected to Weather Desk|Assistant/);
    await page.keyboard.press("Escape");
    await expect(panel).toBeHidden();

    const organizationId = await userIdOf(server, user.email);
    await expect
      .poll(async () => (await server.db.select().from(calls).where(eq(calls.organizationId, organizationId)))[0]?.endedReason ?? null)
      .toBe("Sheet closed");
    const rows = await server.db.select().from(calls).where(eq(calls.organizationId, organizationId));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.endTime).not.toBeNull();
    expect(rows[0]!.cost).toBe(0.05);
  });

  test("without an OpenAI key the panel says so and links to Settings", async ({ page, server, user }) => {
    const upstreamAssistant = await createWeatherAssistant(page, server, upstream);
    const panel = await openTestCall(page, upstreamAssistant.name);
    await panel.getByRole("button", { name: "Start Call" }).click();
    await expectToast(page, "Failed to start call");
    const notice = panel.getByRole("alert");
    await expect(notice).toContainText("Add your OpenAI API key in Settings before starting a call.");
    await expect(panel.getByTestId("call-status")).toHaveText("Not connected");
    await expect(panel.getByRole("button", { name: "Start Call" })).toBeEnabled();

    const organizationId = await userIdOf(server, user.email);
    expect(await server.db.select().from(calls).where(eq(calls.organizationId, organizationId))).toHaveLength(0);

    await notice.getByRole("link", { name: "Go to Settings" }).click();
    await expect(page).toHaveURL(/\/settings#openai-key$/);
    await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
    await expect(page.getByLabel("API Key", { exact: true })).toBeInViewport();
  });
});
