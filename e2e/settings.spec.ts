import { expect, expectToast, test } from "./fixtures.ts";

test("saving the OpenAI key: validation, verification, masked afterwards", async ({ page, server, user: _user }) => {
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  const key = page.getByLabel("API Key", { exact: true });
  await expect(page.getByText("No key stored yet.")).toBeVisible();

  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.getByText("API key cannot be empty")).toBeVisible();

  // The key's shape is checked before anything is sent.
  await key.fill("pk-live-123456");
  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.getByText("An OpenAI API key starts with sk-")).toBeVisible();

  await key.fill("sk-not-accepted");
  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.locator('[data-sonner-toast][data-type="error"]').filter({ hasText: "OpenAI refused this key" })).toBeVisible();
  const refused = page.getByRole("status").filter({ hasText: "OpenAI refused this API key." });
  await expect(refused).toBeVisible();
  await page.reload();
  await expect(refused).toBeVisible();

  await key.fill(server.openai.apiKey);
  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.getByText("OpenAI accepted the key.")).toBeVisible();
  await expectToast(page, "API Key Saved");
  await expect(key).toHaveValue("");
  await page.reload();
  await expect(page.getByLabel("API Key", { exact: true })).toHaveAttribute("placeholder", "•".repeat(32));
  await expect(page.getByText(/A key is stored/)).toBeVisible();
  await expect(page.locator("body")).not.toContainText(server.openai.apiKey);
});
