import { SETTINGS_SECTIONS, SETTINGS_TEXTS } from "../src/shared/settings.ts";
import { GETTING_STARTED_TEXTS as T } from "../src/shared/getting-started.ts";
import { expect, test } from "./fixtures.ts";

const pageWidth = (page: import("@playwright/test").Page) => page.evaluate(() => document.documentElement.scrollWidth);

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("Settings is in sections with in-page links, and the checklist's links land on their card", async ({ page, user: _user }) => {
      await page.goto("/assistants");
      const checklist = page.getByTestId("getting-started");
      await checklist.locator('[data-step="twilio"]').getByRole("link", { name: T.steps.twilio.action }).click();
      await expect(page).toHaveURL(/\/settings#twilio$/);
      await expect(page.getByLabel("Account SID")).toBeInViewport();

      await page.goto("/assistants");
      await checklist.locator('[data-step="openai_key"]').getByRole("link", { name: T.steps.openai_key.action }).click();
      await expect(page).toHaveURL(/\/settings#openai-key$/);
      await expect(page.getByLabel("API Key", { exact: true })).toBeInViewport();

      // An owner sees every section, each reachable from the navigation.
      const nav = page.getByRole("navigation", { name: SETTINGS_TEXTS.navigation });
      await expect(nav.getByRole("link")).toHaveText(SETTINGS_SECTIONS.map((s) => s.title));
      await nav.getByRole("link", { name: "Developers" }).click();
      await expect(page.getByRole("heading", { level: 2, name: "Developers" })).toBeInViewport();
      await expect(page).toHaveURL(/\/settings#developers$/);
    });

    test("Settings fits the screen, with a webhook endpoint and its deliveries on it", async ({ page, user: _user }) => {
      const created = await page.request.post("/api/webhooks", { data: { url: "http://127.0.0.1:9/hooks/a-rather-long-path-for-a-webhook-endpoint", events: ["call.ended"] } });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      expect((await page.request.post(`/api/webhooks/${id}/test`)).ok()).toBe(true);
      await page.goto("/settings#webhooks");
      await expect(page.getByRole("table", { name: "Recent deliveries" })).toBeVisible();
      await expect(page.getByTestId("audit-log-card").getByRole("table")).toBeVisible();
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    });
  });
}
