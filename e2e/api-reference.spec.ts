/**
 * The API reference (/docs/api) as a developer meets it: no console errors, Switchboard's mark
 * rather than the framework's, a way back to the app, and the same words on what a key may do
 * as Settings → API Keys.
 */
import { API_KEY_SCOPE, API_REFERENCE_TEXTS } from "../src/shared/api-keys.ts";
import { expect, test } from "./fixtures.ts";

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("the reference loads without a console error, shows Switchboard's mark and links back to the app", async ({ page, user: _user }) => {
      const problems: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
      });
      page.on("pageerror", (e) => problems.push(e.message));
      await page.goto("/docs/api");
      await expect(page).toHaveTitle(API_REFERENCE_TEXTS.title);
      await expect(page.getByText("Switchboard API").first()).toBeVisible();
      // The key's scope, in the document's own description.
      await expect(page.locator(".info .description")).toContainText(API_KEY_SCOPE);
      const logo = page.getByRole("img", { name: API_REFERENCE_TEXTS.logoAlt });
      await expect(logo).toBeVisible();
      expect(Buffer.from((await logo.getAttribute("src"))!.split(",")[1]!, "base64").toString()).toContain("#4f46e5");
      expect(problems).toEqual([]);

      await page.getByRole("link", { name: API_REFERENCE_TEXTS.backToApp }).click();
      await expect(page).toHaveURL(/\/assistants$/);

      // Settings says the same of a key, and links to the reference.
      await page.goto("/settings#api-keys");
      await expect(page.getByTestId("api-key-scope")).toHaveText(API_KEY_SCOPE);
      await expect(page.getByTestId("api-keys-card").getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/docs/api");
    });
  });
}
