import { expect, expectToast, test } from "./fixtures.ts";

test("saving the OpenAI key: validation, verification, masked afterwards", async ({ page, server, user: _user }) => {
  await page.goto("/settings");
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  const key = page.getByLabel("API Key", { exact: true });
  await expect(page.getByText("No key stored yet.")).toBeVisible();

  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.getByText("API key cannot be empty")).toBeVisible();

  await key.fill("sk-not-accepted");
  await page.getByRole("button", { name: "Save Key" }).click();
  await expectToast(page, "API Key Saved");
  await expect(page.getByRole("status").filter({ hasText: "OpenAI did not accept the key" })).toBeVisible();

  await key.fill(server.openai.apiKey);
  await page.getByRole("button", { name: "Save Key" }).click();
  await expect(page.getByText("OpenAI accepted the key.")).toBeVisible();
  await expect(key).toHaveValue("");
  await page.reload();
  await expect(page.getByLabel("API Key", { exact: true })).toHaveAttribute("placeholder", "•".repeat(32));
  await expect(page.getByText(/A key is stored/)).toBeVisible();
  await expect(page.locator("body")).not.toContainText(server.openai.apiKey);
});
