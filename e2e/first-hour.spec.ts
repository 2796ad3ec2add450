import { eq } from "drizzle-orm";
import { assistants, calls, user as users } from "../src/server/db/schema.ts";
import { CALL_MESSAGES } from "../src/shared/call-records.ts";
import { REACHABILITY_TEXTS } from "../src/shared/reachability.ts";
import { expect, test, type TestServer } from "./fixtures.ts";

/** A few finished calls on one day, so the Calls page shows its cards, chart, filters and table. */
async function seed(server: TestServer, email: string) {
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, email));
  const organizationId = owner!.id;
  const [ava] = await server.db.insert(assistants).values({ organizationId, name: "Ava with a rather long assistant name", model: "gpt-realtime" }).returning();
  const start = new Date("2026-03-14T15:04:05Z").getTime();
  await server.db.insert(calls).values(
    Array.from({ length: 5 }, (_, i) => ({
      organizationId,
      assistantId: ava!.id,
      assistantName: ava!.name,
      startTime: new Date(start + i * 600_000),
      endTime: new Date(start + i * 600_000 + 72_000),
      endedReason: "Customer ended the call after the assistant answered every question",
      cost: 0.07,
      callerNumber: "+15551234567",
      calledNumber: "+15557654321",
      logs: { isTest: false, transcript: [], toolsUsed: [] },
    })),
  );
}

const overflow = (page: import("@playwright/test").Page) => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

test("the Calls page fits 1280 px and a phone without sideways scrolling, and says when From is after To", async ({ page, server, user }) => {
  await seed(server, user.email);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.goto("/calls");
  await expect(page.getByTestId("call-row")).toHaveCount(5);
  await expect(page).toHaveTitle("Calls · Switchboard");
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  for (const name of ["Export CSV", "Refresh", "Clear filters"]) {
    const box = (await page.getByRole(name === "Export CSV" ? "link" : "button", { name }).boundingBox())!;
    expect(box.x + box.width, name).toBeLessThanOrEqual(1280);
  }
  await page.screenshot({ path: "test-results/calls-1280.png", fullPage: true });

  // One day of data is a bar, not the whole chart.
  const bar = (await page.getByTestId("chart-bar").first().boundingBox())!;
  const chart = (await page.getByTestId("calls-chart").boundingBox())!;
  expect(bar.width).toBeLessThan(chart.width / 4);

  await page.getByLabel("From").fill("2026-12-31");
  await page.getByLabel("To").fill("2026-01-01");
  await expect(page.getByRole("alert").filter({ hasText: CALL_MESSAGES.invertedRange })).toBeVisible();
  await expect(page.getByLabel("From")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByTestId("stats-period")).toContainText("the date range is invalid");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/calls");
  await expect(page.getByTestId("call-row")).toHaveCount(5);
  expect(await overflow(page)).toBeLessThanOrEqual(0);
  await page.screenshot({ path: "test-results/calls-390.png", fullPage: true });
});

test("pages are named in the title; an unknown path answers 404 and keeps the app's frame when signed in", async ({ page, user: _user }) => {
  await page.goto("/settings");
  await expect(page).toHaveTitle("Settings · Switchboard");
  const res = await page.goto("/no/such/page");
  expect(res?.status()).toBe(404);
  await expect(page.getByText("Oops! Page not found")).toBeVisible();
  await expect(page.getByRole("link", { name: "Calls" }).first()).toBeVisible();
  await expect(page).toHaveTitle("Page not found · Switchboard");
  expect((await page.goto("/calls"))?.status()).toBe(200);
});

test("Phone Numbers says when Twilio credentials are missing and when Twilio cannot reach PUBLIC_URL", async ({ page, user: _user }) => {
  await page.goto("/phone-numbers");
  await expect(page.getByTestId("no-twilio-credentials")).toContainText(REACHABILITY_TEXTS.noCredentialsTitle);
  await expect(page.getByTestId("no-twilio-credentials").getByRole("link", { name: "Open Settings" })).toHaveAttribute("href", "/settings#twilio");
  // The test server listens on http://127.0.0.1: Twilio could never reach it.
  await expect(page.getByTestId("reachability-warning").first()).toContainText(REACHABILITY_TEXTS.title);
  await page.goto("/settings");
  await page.getByRole("button", { name: "Check reachability" }).click();
  await expect(page.getByTestId("reachability-urls")).toContainText("/telephony/twilio/voice");
  await expect(page.getByTestId("reachability-warning")).toBeVisible();
});
