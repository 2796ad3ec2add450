/**
 * Versions in the browser: an edit changes only the draft; the History tab publishes it with a
 * note, compares two versions side by side, and rolls back to v1 (published as v3).
 */
import { expect, expectToast, test } from "./fixtures.ts";

test("publish the draft, compare versions side by side, roll back", async ({ page, server, user: _user }) => {
  const res = await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front Desk", instructions: "Be kind." } });
  expect(res.ok()).toBe(true);
  await page.goto("/assistants");
  await page.getByTestId("assistant-row").filter({ hasText: "Front Desk" }).getByRole("cell").first().click();
  const panel = page.getByRole("dialog", { name: "Front Desk" });
  await panel.getByRole("button", { name: "Edit" }).click();
  const form = page.getByRole("dialog", { name: "Edit Assistant" });
  await form.getByLabel("Instructions").fill("Be brief.");
  await form.getByRole("button", { name: "Update Assistant" }).click();
  await expectToast(page, "Assistant updated successfully!");

  await panel.getByRole("tab", { name: "History" }).click();
  const versions = panel.getByRole("list", { name: "Versions" });
  await expect(versions.locator('[data-version="1"]')).toContainText("Live");
  await expect(panel.getByText("The draft has changes that callers do not hear yet.")).toBeVisible();
  await panel.getByLabel("Note (optional)").fill("Shorter answers");
  await panel.getByRole("button", { name: "Publish" }).click();
  await expectToast(page, "Published as v2");
  await expect(versions.locator('[data-version="2"]')).toContainText("Live");
  await expect(versions.locator('[data-version="2"]')).toContainText("Shorter answers");

  await versions.locator('[data-version="1"]').getByRole("button", { name: "Compare with v2" }).click();
  const compare = panel.getByRole("region", { name: "Compare versions" });
  const instructions = compare.locator('[data-field="Instructions"]');
  await expect(instructions).toHaveAttribute("data-changed", "true");
  await expect(instructions).toContainText("Be kind.");
  await expect(instructions).toContainText("Be brief.");
  await expect(compare.locator('[data-field="Voice"]')).toHaveAttribute("data-changed", "false");

  await versions.locator('[data-version="1"]').getByRole("button", { name: "Roll back" }).click();
  await expectToast(page, "Rolled back: v3 is live with the content of v1");
  await expect(versions.locator('[data-version="3"]')).toContainText("Rolled back to the content of v1");
  await expect(versions.locator('[data-version="3"]')).toContainText("Live");
});
