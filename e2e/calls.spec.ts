import { eq } from "drizzle-orm";
import type { Page } from "@playwright/test";
import type { TranscriptEntry } from "../src/shared/calls.ts";
import { assistants, calls, user as users } from "../src/server/db/schema.ts";
import { writeStereoWav } from "../src/server/voice/audio.ts";
import { expect, test, type TestServer } from "./fixtures.ts";

// Fixed zone, so the dates below read the same on every machine.
test.use({ timezoneId: "America/New_York" });

const TRANSCRIPT: TranscriptEntry[] = [
  { type: "assistant", content: "Hello, this is Ava. How can I help?", timestamp: "2026-03-14T15:04:06.000Z" },
  { type: "user", content: "Where is my order 42?", timestamp: "2026-03-14T15:04:12.000Z" },
  {
    type: "tool-request",
    content: "Calling tool Lookup Order",
    timestamp: "2026-03-14T15:04:13.000Z",
    parameters: { order_id: "42" },
    toolData: { toolName: "Lookup Order", callId: "call_1" },
  },
  {
    type: "tool-response",
    content: "Tool Lookup Order completed with status 200",
    timestamp: "2026-03-14T15:04:14.000Z",
    result: { status: "shipped", carrier: "UPS" },
    toolData: { toolName: "Lookup Order", callId: "call_1", status: 200 },
  },
  { type: "assistant", content: "Your order 42 has shipped with UPS.", timestamp: "2026-03-14T15:04:16.000Z" },
];
const FINISHED_LOGS = {
  isTest: true,
  transcript: TRANSCRIPT,
  toolsUsed: [{ name: "Lookup Order", id: "tool-1", parameters: { order_id: "42" }, result: { status: "shipped", carrier: "UPS" }, timestamp: "2026-03-14T15:04:14.000Z" }],
};

/** A real recording's shape: 16-bit stereo WAV as long as the call (72 s), a quiet tone at 8 kHz to keep it small. */
function recordingWav(seconds: number): Buffer {
  const rate = 8000;
  const tone = Int16Array.from({ length: seconds * rate }, (_, i) => Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 2000));
  return writeStereoWav(tone, new Int16Array(0), rate);
}

/** The three calls of spec §2's Calls page (and a fourth whose assistant was deleted), for the signed-in user. */
async function seedCalls(server: TestServer, email: string) {
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const organizationId = owner!.id;
  const [ava] = await server.db.insert(assistants).values({ organizationId, name: "Ava", model: "gpt-realtime" }).returning();
  const [finished, live, empty, orphan] = await server.db
    .insert(calls)
    .values([
      {
        organizationId,
        assistantId: ava!.id,
        assistantName: "Ava",
        startTime: new Date("2026-03-14T15:04:05Z"),
        endTime: new Date("2026-03-14T15:05:17Z"),
        endedReason: "User ended call",
        cost: 0.07,
        logs: FINISHED_LOGS,
      },
      { organizationId, assistantId: ava!.id, assistantName: "Ava", startTime: new Date(Date.now() - 30_000), logs: { isTest: true, transcript: [], toolsUsed: [] } },
      {
        organizationId,
        assistantId: ava!.id,
        assistantName: "Ava",
        startTime: new Date("2026-03-13T09:30:00Z"),
        endTime: new Date("2026-03-13T09:30:05Z"),
        endedReason: "Connection error",
        cost: 0.05,
        logs: { isTest: true, transcript: [], toolsUsed: [] },
      },
      {
        organizationId,
        assistantId: null,
        assistantName: "Old Bot",
        startTime: new Date("2026-02-01T18:00:00Z"),
        endTime: new Date("2026-02-01T18:00:40Z"),
        endedReason: null,
        cost: null,
        logs: {},
      },
    ])
    .returning();
  const key = `recordings/${finished!.id}.wav`;
  await server.app.ctx.storage.put(key, recordingWav(72), { contentType: "audio/wav" });
  await server.db.update(calls).set({ recording: key }).where(eq(calls.id, finished!.id));
  return { finished: finished!, live: live!, empty: empty!, orphan: orphan! };
}

const rows = (page: Page) => page.getByTestId("call-row");
const details = (page: Page) => page.getByRole("dialog", { name: "Call Details" });
const cellTexts = async (page: Page, index: number) => (await rows(page).nth(index).locator("td").allInnerTexts()).map((t) => t.trim());

test("a fresh account has no call records", async ({ page, user: _user }) => {
  await page.goto("/calls");
  await expect(page.getByRole("heading", { name: "Calls", level: 1 })).toBeVisible();
  await expect(page.getByText("No call records found")).toBeVisible();
  await expect(page.getByRole("link", { name: "Make a test call" })).toHaveAttribute("href", "/assistants");
  await expect(rows(page)).toHaveCount(0);
});

test("the table lists the calls, newest first, with their derived values", async ({ page, server, user }) => {
  await seedCalls(server, user.email);
  await page.goto("/calls");

  await expect(page.getByRole("columnheader")).toHaveText(["Date", "Type", "Customer", "Assistant", "Version", "Direction", "Duration", "Cost", "Success", "Status"]);
  await expect(rows(page)).toHaveCount(4);

  // The call in progress: first (newest), counting up, no cost yet.
  const liveRow = rows(page).nth(0);
  await expect(liveRow.locator("[data-status]")).toHaveText("In progress");
  await expect(liveRow.locator("[data-status]")).toHaveAttribute("data-status", "in-progress");
  await expect(liveRow.locator("td").nth(7)).toHaveText("N/A");
  const durationCell = liveRow.locator("td").nth(6);
  const first = await durationCell.innerText();
  expect(first).toMatch(/^0:[3-5]\d$/);
  await expect(durationCell).not.toHaveText(first);
  await expect(page.getByTestId("live-indicator")).toBeVisible();

  expect(await cellTexts(page, 1)).toEqual(["Mar 14, 2026 11:04 AM", "Test", "Dana Scully", "Ava", "Draft", "Inbound", "1:12", "$0.07", "—", "User ended call"]);
  expect(await cellTexts(page, 2)).toEqual(["Mar 13, 2026 5:30 AM", "Test", "Dana Scully", "Ava", "Draft", "Inbound", "0:05", "$0.05", "—", "Connection error"]);
  await expect(rows(page).nth(2).locator("[data-status]")).toHaveAttribute("data-status", "error");
  expect(await cellTexts(page, 3)).toEqual(["Feb 1, 2026 1:00 PM", "Unknown", "Dana Scully", "Old Bot (deleted)", "Draft", "Inbound", "0:40", "N/A", "—", "Completed"]);
  await expect(rows(page).nth(3).locator("[data-status]")).toHaveAttribute("data-status", "completed");
});

test("the details panel: information, recording playback, transcript and raw logs", async ({ page, server, user }) => {
  await seedCalls(server, user.email);
  await page.goto("/calls");
  await rows(page).filter({ hasText: "Mar 14, 2026 11:04 AM" }).click();

  const panel = details(page);
  await expect(panel).toBeVisible();
  const width = await panel.evaluate((el) => el.getBoundingClientRect().width);
  expect(width / 1440).toBeGreaterThanOrEqual(0.45 - 0.01);
  expect(width / 1440).toBeLessThanOrEqual(0.6 + 0.01);

  // Call Information.
  const info = panel.getByRole("region", { name: "Call Information" });
  const field = (label: string) => info.locator(`[data-field="${label}"] dd`);
  await expect(field("Date")).toHaveText("Mar 14, 2026 11:04 AM");
  await expect(field("Type")).toHaveText("Test");
  await expect(field("Assistant")).toHaveText("Ava");
  await expect(field("Duration")).toHaveText("1:12");
  // A test call's figure is the tariff, and the details say so.
  await expect(field("Tariff")).toHaveText("$0.07");
  await expect(field("Status")).toHaveText("User ended call");
  await expect(field("End Reason")).toHaveText("User ended call");

  // Call Audio: the recording plays, its progress advances, and it can be paused and sought.
  const audioSection = panel.getByRole("region", { name: "Call Audio" });
  await expect(audioSection.getByText("Recording available")).toBeVisible();
  const progress = audioSection.getByTestId("audio-progress");
  await expect(progress).toHaveText("0:00 / 1:12");
  const play = audioSection.getByRole("button", { name: "Play recording" });
  await expect(play).toBeEnabled();
  await play.click();
  const audio = panel.locator("audio");
  await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime)).toBeGreaterThan(1);
  await expect(progress).not.toHaveText("0:00 / 1:12");
  await expect(progress).toHaveText(/^0:0[1-9] \/ 1:12$/);
  // A call is in progress, so the list is re-read every few seconds with freshly signed
  // addresses: playback carries on from the address it started with.
  const src = await audio.getAttribute("src");
  const before = await audio.evaluate((el: HTMLAudioElement) => el.currentTime);
  await page.waitForResponse((r) => new URL(r.url()).pathname === "/api/calls" && r.ok());
  await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime)).toBeGreaterThan(before + 0.5);
  expect(await audio.getAttribute("src")).toBe(src);
  expect(await audio.evaluate((el: HTMLAudioElement) => el.paused)).toBe(false);
  await audioSection.getByRole("button", { name: "Pause recording" }).click();
  await expect(audioSection.getByRole("button", { name: "Play recording" })).toBeVisible();
  expect(await audio.evaluate((el: HTMLAudioElement) => el.paused)).toBe(true);
  await audioSection.getByRole("slider", { name: "Seek" }).fill("36");
  await expect(progress).toHaveText("0:36 / 1:12");
  expect(await audio.evaluate((el: HTMLAudioElement) => Math.floor(el.currentTime))).toBe(36);

  // Conversation Transcript: type, time and content of every entry; Parameters and Result of the tool.
  const transcript = panel.getByRole("region", { name: "Conversation Transcript" });
  const entries = transcript.getByTestId("transcript-entry");
  await expect(entries).toHaveCount(5);
  await expect(entries.getByTestId("entry-type")).toHaveText(["Assistant", "User", "Tool request", "Tool response", "Assistant"]);
  await expect(entries.getByTestId("entry-time").first()).toHaveText("11:04:06 AM");
  await expect(entries.nth(1).getByTestId("entry-content")).toHaveText("Where is my order 42?");
  const request = entries.nth(2);
  await expect(request.getByText("Parameters")).toBeVisible();
  expect(JSON.parse(await request.getByTestId("entry-parameters").locator("pre").innerText())).toEqual({ order_id: "42" });
  const response = entries.nth(3);
  await expect(response.getByText("Result")).toBeVisible();
  expect(JSON.parse(await response.getByTestId("entry-result").locator("pre").innerText())).toEqual({ status: "shipped", carrier: "UPS" });
  await expect(request.getByTestId("entry-result")).toHaveCount(0);
  await expect(response.getByTestId("entry-parameters")).toHaveCount(0);

  // View Raw Logs: a drawer from the bottom with the logs as JSON.
  await panel.getByRole("button", { name: "View Raw Logs" }).click();
  const drawer = page.getByRole("dialog", { name: "Raw Logs" });
  await expect(drawer).toBeVisible();
  await expect(drawer).toHaveAttribute("data-side", "bottom");
  const json = await drawer.getByTestId("raw-logs-json").innerText();
  expect(json).toContain('  "isTest": true');
  expect(JSON.parse(json)).toEqual(FINISHED_LOGS);
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();
  await expect(panel).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
});

test("a recording address that stops working (expired) is replaced by a fresh one", async ({ page, server, user }) => {
  const { finished } = await seedCalls(server, user.email);
  // The address the player asked for first, as the browser requested it. Reading the element's
  // src after opening the panel would race the player: the refusal, the fresh read and the switch
  // can all be over before the test looks, and then no further change ever comes.
  const seen: { expired?: string } = {};
  let refused = 0;
  await page.route(`**/api/media/recordings/${finished.id}.wav*`, async (route) => {
    if (refused++ === 0) {
      seen.expired = route.request().url();
      await route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ error: { code: "forbidden", message: "This media address has expired" } }) });
    } else {
      await route.continue();
    }
  });
  await page.goto("/calls");
  await rows(page).filter({ hasText: "Mar 14, 2026 11:04 AM" }).click();
  const panel = details(page);
  const audio = panel.locator("audio");
  await expect.poll(() => seen.expired).toBeDefined();
  const expiredUrl = new URL(seen.expired!);
  expect(expiredUrl.searchParams.get("sig")).toBeTruthy();
  // The player now holds another signed address of the same recording.
  const current = async () => {
    const src = await audio.getAttribute("src");
    return src === null ? null : new URL(src, page.url());
  };
  await expect.poll(async () => [null, expiredUrl.href].includes((await current())?.href ?? null)).toBe(false);
  const fresh = (await current())!;
  expect(fresh.pathname).toBe(expiredUrl.pathname);
  expect(fresh.searchParams.get("sig")).toBeTruthy();
  expect(fresh.searchParams.get("sig")).not.toBe(expiredUrl.searchParams.get("sig"));
  await panel.getByRole("button", { name: "Play recording" }).click();
  await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime)).toBeGreaterThan(0.5);
  expect(refused).toBeGreaterThan(1);
});

test("the details panel's fallbacks: no recording, an empty transcript, no logs", async ({ page, server, user }) => {
  await seedCalls(server, user.email);
  await page.goto("/calls");

  // In progress: no recording yet, so nothing to play.
  await rows(page).nth(0).click();
  let panel = details(page);
  await expect(panel.locator('[data-field="Status"] dd')).toHaveText("In progress");
  await expect(panel.locator('[data-field="Tariff"] dd')).toHaveText("N/A");
  await expect(panel.getByText("No recording available yet")).toBeVisible();
  await expect(panel.getByRole("button", { name: "Play recording" })).toBeDisabled();
  await expect(panel.getByTestId("audio-progress")).toHaveText(/^0:00 \/ 0:[3-5]\d$/);
  await expect(panel.getByText("No transcript data available")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();

  // Ended with an error and an empty transcript.
  await rows(page).filter({ hasText: "Mar 13, 2026" }).click();
  panel = details(page);
  await expect(panel.locator('[data-field="End Reason"] dd')).toHaveText("Connection error");
  await expect(panel.getByText("No transcript data available")).toBeVisible();
  await expect(panel.getByRole("button", { name: "Play recording" })).toBeDisabled();
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();

  // No logs at all: type Unknown, "No transcript available", and the raw logs say so.
  await rows(page).filter({ hasText: "Feb 1, 2026" }).click();
  panel = details(page);
  await expect(panel.locator('[data-field="Type"] dd')).toHaveText("Unknown");
  await expect(panel.locator('[data-field="Assistant"] dd')).toHaveText("Old Bot (deleted)");
  await expect(panel.locator('[data-field="Status"] dd')).toHaveText("Completed");
  await expect(panel.getByText("No transcript available", { exact: true })).toBeVisible();
  await panel.getByRole("button", { name: "View Raw Logs" }).click();
  await expect(page.getByRole("dialog", { name: "Raw Logs" }).getByText("No logs were recorded for this call.")).toBeVisible();
});

test("while loading it says so; a failed fetch is logged to the console and can be retried", async ({ page, server, user }) => {
  await seedCalls(server, user.email);
  const errors: string[] = [];
  page.on("console", (msg) => {
    if (msg.type() === "error") errors.push(msg.text());
  });
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  // The list only (its query string carries the page size), not the stats or a single call.
  const listUrl = (url: URL) => url.pathname === "/api/calls";
  await page.route(listUrl, async (route) => {
    await held;
    await route.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ error: { code: "internal", message: "Internal Server Error" } }) });
  });

  await page.goto("/calls");
  await expect(page.getByText("Loading call data...", { exact: true })).toBeVisible();
  release();
  const retry = page.getByRole("button", { name: "Retry" });
  await expect(retry).toBeVisible({ timeout: 20_000 });
  expect(errors.some((e) => e.startsWith("Error fetching calls:"))).toBe(true);
  // Console only: no toast.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0);

  await page.unroute(listUrl);
  await retry.click();
  await expect(rows(page)).toHaveCount(4);
});

test("the list follows a call in progress until it ends", async ({ page, server, user }) => {
  const { live } = await seedCalls(server, user.email);
  await page.goto("/calls");
  await expect(rows(page).nth(0).locator("[data-status]")).toHaveText("In progress");
  await server.db
    .update(calls)
    .set({ endTime: new Date(live.startTime.getTime() + 45_000), endedReason: "Sheet closed", cost: 0.05 })
    .where(eq(calls.id, live.id));
  // Re-read within ~5 s, without a reload.
  await expect(rows(page).nth(0).locator("[data-status]")).toHaveText("Sheet closed");
  await expect(rows(page).nth(0).locator("td").nth(6)).toHaveText("0:45");
  await expect(rows(page).nth(0).locator("td").nth(7)).toHaveText("$0.05");
  await expect(page.getByTestId("live-indicator")).toBeHidden();
});

test("on a phone the table keeps date, duration and status, without sideways scrolling", async ({ page, server, user }) => {
  await page.setViewportSize({ width: 375, height: 812 });
  await seedCalls(server, user.email);
  await page.goto("/calls");
  await expect(rows(page)).toHaveCount(4);
  await expect(page.getByRole("columnheader", { name: "Date" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Duration" })).toBeVisible();
  await expect(page.getByRole("columnheader", { name: "Status" })).toBeVisible();
  await expect(rows(page).nth(1)).toContainText("Ava");
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
  const table = page.locator("[data-slot=table-container]");
  expect(await table.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(0);

  await rows(page).nth(1).click();
  const panel = details(page);
  await expect(panel).toBeVisible();
  expect(await panel.evaluate((el) => el.getBoundingClientRect().width)).toBe(375);
});
