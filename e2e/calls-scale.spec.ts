import { readFile } from "node:fs/promises";
import { eq } from "drizzle-orm";
import type { Page } from "@playwright/test";
import type { TranscriptEntry } from "../src/shared/calls.ts";
import { SETTINGS_TEXTS } from "../src/shared/settings.ts";
import { assistants, calls, user as users } from "../src/server/db/schema.ts";
import { expect, RATE_LIMITED_MESSAGE, refuseReads, test, type TestServer } from "./fixtures.ts";

// Fixed zone, so days and dates read the same on every machine.
test.use({ timezoneId: "America/New_York" });

const said = (...lines: string[]): TranscriptEntry[] => lines.map((content, i) => ({ type: i % 2 ? "user" : "assistant", content, timestamp: "2026-03-01T15:00:00.000Z" }));
const rows = (page: Page) => page.getByTestId("call-row");
const details = (page: Page) => page.getByRole("dialog", { name: "Call Details" });
const search = (page: Page) => page.getByRole("searchbox", { name: "Search calls" });
const stat = (page: Page, label: string) => page.locator(`[data-stat="${label}"]`);

async function userIdOf(server: TestServer, email: string) {
  const [row] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return row!.id;
}

/** Two assistants; test and phone calls across March 2026 (New York is UTC-5 until March 8). */
async function seed(server: TestServer, email: string) {
  const organizationId = await userIdOf(server, email);
  const [sales, support] = await server.db
    .insert(assistants)
    .values([
      { organizationId, name: "Sales", model: "gpt-realtime-2.1" },
      { organizationId, name: "Support", model: "gpt-realtime-2.1" },
    ])
    .returning();
  const call = (start: string, seconds: number, extra: Partial<typeof calls.$inferInsert>) => ({
    organizationId,
    startTime: new Date(start),
    endTime: new Date(Date.parse(start) + seconds * 1000),
    endedReason: "User ended call",
    cost: 0.05,
    ...extra,
  });
  await server.db.insert(calls).values([
    call("2026-03-02T15:00:00Z", 60, { assistantId: sales!.id, logs: { isTest: true, transcript: said("Welcome", "I need a refund for my blender") } }),
    call("2026-03-03T15:00:00Z", 120, {
      assistantId: sales!.id,
      callerNumber: "+15551234567",
      calledNumber: "+15550001111",
      cost: 0.1,
      endedReason: "Caller hung up",
      logs: { isTest: false, transcript: said("Hello", "Where is my parcel") },
      providerCost: {
        total: 0.0123,
        lines: [
          { model: "gpt-realtime-2.1", kind: "realtime", text_in: 100, text_cached: 0, audio_in: 300, audio_cached: 50, text_out: 20, audio_out: 150, seconds: 0, cost: 0.0121 },
          { model: "gpt-4o-mini-transcribe", kind: "transcription", text_in: 0, text_cached: 0, audio_in: 160, audio_cached: 0, text_out: 12, audio_out: 0, seconds: 0, cost: 0.0002 },
        ],
      },
    }),
    call("2026-03-03T18:00:00Z", 30, { assistantId: support!.id, endedReason: "Connection failed", logs: { isTest: true, transcript: said("Sorry") } }),
    call("2026-03-05T15:00:00Z", 90, { assistantId: support!.id, callerNumber: "+442071234567", logs: { isTest: false, transcript: said("Refunds take five days") } }),
  ]);
  return { organizationId, sales: sales!, support: support! };
}

test("filters and search change the list and the URL, and survive a reload", async ({ page, server, user }) => {
  const { sales } = await seed(server, user.email);
  await page.goto("/calls");
  await expect(rows(page)).toHaveCount(4);

  // Customer: the caller's number for phone calls, the user for test calls.
  await expect(rows(page).nth(0).locator("td").nth(2)).toHaveText("+442071234567");
  await expect(rows(page).nth(1).locator("td").nth(2)).toHaveText("Dana Scully");

  await search(page).fill("refund");
  await expect(page).toHaveURL(/[?&]q=refund\b/);
  await expect(rows(page)).toHaveCount(2);

  await page.getByRole("combobox", { name: "Type" }).click();
  await page.getByRole("option", { name: "Real" }).click();
  await expect(page).toHaveURL(/type=real/);
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).nth(0)).toContainText("+442071234567");

  await page.reload();
  await expect(search(page)).toHaveValue("refund");
  await expect(page.getByRole("combobox", { name: "Type" })).toHaveText("Real");
  await expect(rows(page)).toHaveCount(1);

  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(rows(page)).toHaveCount(4);
  await expect(search(page)).toHaveValue("");
  expect(new URL(page.url()).search).toBe("");

  // A shared link: assistant and status from the query string.
  await page.goto(`/calls?assistant_id=${sales.id}&status=completed`);
  await expect(page.getByRole("combobox", { name: "Assistant" })).toHaveText("Sales");
  await expect(page.getByRole("combobox", { name: "Status" })).toHaveText("Completed");
  await expect(rows(page)).toHaveCount(2);
  await page.getByRole("combobox", { name: "Status" }).click();
  await page.getByRole("option", { name: "Error" }).click();
  await expect(page).toHaveURL(/status=error/);
  await expect(page.getByText("No call records found")).toBeVisible();

  // A phone number finds the call from it.
  await page.goto("/calls?q=555 123");
  await expect(rows(page)).toHaveCount(1);
  await expect(rows(page).nth(0)).toContainText("+15551234567");
});

test("the summary cards and the chart follow the chosen period", async ({ page, server, user }) => {
  await seed(server, user.email);
  await page.goto("/calls?from=2026-03-01&to=2026-03-04");
  await expect(page.getByTestId("stats-period")).toHaveText("Mar 1, 2026 – Mar 4, 2026");
  // Three calls: 60 + 120 + 30 s = 3.5 minutes, average 70 s; two test calls at the tariff
  // ($0.05 each) and a phone call at its real cost ($0.0123): $0.11.
  await expect(stat(page, "Calls")).toContainText("3");
  await expect(stat(page, "Minutes")).toContainText("3.5");
  await expect(stat(page, "Cost")).toContainText("$0.11");
  await expect(stat(page, "Average duration")).toContainText("1:10");
  const bars = page.getByTestId("chart-bar");
  await expect(bars).toHaveCount(4);
  await expect(bars.nth(2)).toHaveAttribute("data-day", "2026-03-03");
  await expect(bars.nth(2)).toHaveAttribute("data-calls", "2");
  await expect(bars.nth(0)).toHaveAttribute("data-calls", "0");

  // Changing the period in the page changes the URL and the figures.
  await page.getByLabel("To", { exact: true }).fill("2026-03-31");
  await expect(page).toHaveURL(/to=2026-03-31/);
  await expect(stat(page, "Calls")).toContainText("4");
  await expect(bars).toHaveCount(31);
  await expect(rows(page)).toHaveCount(4);
});

test("load more brings the older calls", async ({ page, server, user }) => {
  const organizationId = await userIdOf(server, user.email);
  const base = Date.parse("2026-01-01T12:00:00Z");
  await server.db.insert(calls).values(
    Array.from({ length: 62 }, (_, i) => ({ organizationId, startTime: new Date(base + i * 3_600_000), endTime: new Date(base + i * 3_600_000 + 30_000), cost: 0.05, logs: { isTest: true, transcript: [] } })),
  );
  await page.goto("/calls");
  await expect(rows(page)).toHaveCount(50);
  await expect(page.getByTestId("calls-shown")).toHaveText("50 calls shown; older calls follow");
  await page.getByRole("button", { name: "Load more" }).click();
  await expect(rows(page)).toHaveCount(62);
  await expect(page.getByRole("button", { name: "Load more" })).toHaveCount(0);
  await expect(page.getByTestId("calls-shown")).toHaveText("62 calls shown");
  await expect(rows(page).nth(61)).toContainText("Jan 1, 2026 7:00 AM");
});

test("Export CSV downloads the filtered calls", async ({ page, server, user }) => {
  await seed(server, user.email);
  await page.goto("/calls?type=real");
  await expect(rows(page)).toHaveCount(2);
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Export CSV" }).click()]);
  expect(download.suggestedFilename()).toMatch(/^calls-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path())!, "utf8");
  const lines = csv.trimEnd().split("\r\n");
  expect(lines[0]).toBe("id,start_time,end_time,type,customer,assistant,called_number,duration_seconds,cost,status,ended_reason,has_recording,direction,assistant_version,campaign_id,summary,success,success_reason");
  expect(lines).toHaveLength(3);
  // Phone calls at their real cost (none recorded for the first), not the tariff.
  expect(lines[1]).toContain(",Real,+442071234567,Support,,90.0,,completed,User ended call,no");
  expect(lines[2]).toContain(",Real,+15551234567,Sales,+15550001111,120.0,0.0123,completed,Caller hung up,no");
});

test("the details show the cost breakdown, and Delete removes the call after a confirmation", async ({ page, server, user }) => {
  await seed(server, user.email);
  await page.goto("/calls");
  await rows(page).filter({ hasText: "+15551234567" }).click();
  const panel = details(page);
  const breakdown = panel.getByTestId("cost-breakdown");
  // A phone call: its real cost first, no tariff; Twilio's price not given yet.
  await expect(breakdown.locator('[data-field="Billed"]')).toHaveCount(0);
  await expect(breakdown.locator('[data-field="Provider cost"] dd')).toHaveText("$0.0123");
  await expect(breakdown.locator('[data-field="AI provider"] dd')).toHaveText("$0.0123");
  await expect(breakdown.locator('[data-field="Twilio"] dd')).toContainText("Waiting for Twilio's price");
  await expect(breakdown.getByTestId("cost-line")).toHaveCount(2);
  await expect(breakdown.getByTestId("cost-line").nth(0)).toContainText("350 audio in (50 cached), 100 text in, 150 audio out, 20 text out tokens");
  await expect(panel.getByRole("region", { name: "Conversation Transcript" }).getByTestId("transcript-entry")).toHaveCount(2);

  // Cancel keeps it.
  await panel.getByRole("button", { name: "Delete" }).click();
  let confirm = page.getByRole("alertdialog", { name: "Delete this call?" });
  await expect(confirm).toContainText("will be deleted permanently");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(confirm).toBeHidden();
  await expect(rows(page)).toHaveCount(4);

  await panel.getByRole("button", { name: "Delete" }).click();
  confirm = page.getByRole("alertdialog", { name: "Delete this call?" });
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Call deleted" })).toBeVisible();
  await expect(panel).toBeHidden();
  await expect(rows(page)).toHaveCount(3);
  await expect(rows(page).filter({ hasText: "+15551234567" })).toHaveCount(0);
  await page.reload();
  await expect(rows(page)).toHaveCount(3);
});

test("Settings keeps data retention off until the user sets it", async ({ page, user: _user }) => {
  await page.goto("/settings");
  const recordings = page.getByTestId("retention-recordings");
  await expect(recordings.getByRole("checkbox")).not.toBeChecked();
  await expect(recordings.getByRole("spinbutton")).toBeDisabled();
  await recordings.getByRole("checkbox").click();
  await recordings.getByRole("spinbutton").fill("0");
  await page.getByRole("button", { name: "Save retention" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Enter a whole number of days from 1 to 3650" })).toBeVisible();
  await recordings.getByRole("spinbutton").fill("14");
  await page.getByRole("button", { name: "Save retention" }).click();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Retention settings saved" })).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("retention-recordings").getByRole("checkbox")).toBeChecked();
  await expect(page.getByTestId("retention-recordings").getByRole("spinbutton")).toHaveValue("14");
  await expect(page.getByTestId("retention-calls").getByRole("checkbox")).not.toBeChecked();
});

test("Settings: data retention that cannot be read says so, and Try again reads it", async ({ page, user: _user }) => {
  const allow = await refuseReads(page, "**/api/settings/retention");
  await page.goto("/settings");
  const card = page.locator("form").filter({ has: page.getByTestId("retention-recordings") });
  const recordings = page.getByTestId("retention-recordings").getByRole("checkbox");
  await expect(card.getByRole("alert")).toHaveText(`${SETTINGS_TEXTS.loadFailed} ${RATE_LIMITED_MESSAGE}${SETTINGS_TEXTS.tryAgain}`);
  await expect(recordings).toBeDisabled();
  await expect(card.getByRole("button", { name: "Save retention" })).toBeDisabled();

  allow();
  await card.getByRole("button", { name: SETTINGS_TEXTS.tryAgain }).click();
  await expect(recordings).toBeEnabled();
  await expect(recordings).not.toBeChecked();
  await expect(card.getByRole("alert")).toHaveCount(0);
});
