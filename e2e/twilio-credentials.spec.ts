import { AxeBuilder } from "@axe-core/playwright";
import { expect, expectToast, hold, test } from "./fixtures.ts";

test("saving Twilio credentials walks through every status line", async ({ page, server, user: _user }) => {
  const account = server.twilio.addAccount({ friendlyName: "Contact centre" });
  const card = page.locator("form").filter({ has: page.getByLabel("Account SID") });
  const status = card.getByTestId("twilio-status");

  const releaseCheck = await hold(page, "**/api/credentials/twilio_account_sid");
  await page.goto("/settings");
  await expect(status).toHaveText("Checking for existing credentials...");
  releaseCheck();
  await expect(status).toHaveText("No existing credentials found");
  await expect(card.getByRole("link", { name: "Twilio docs" })).toHaveAttribute("href", /twilio\.com\/docs/);
  await expect(card.getByRole("link", { name: "Twilio Console" })).toHaveAttribute("href", "https://console.twilio.com/");

  await card.getByRole("button", { name: "Save Credentials" }).click();
  await expect(card.getByText("Both Account SID and Auth Token are required")).toBeVisible();
  await card.getByLabel("Account SID").fill(account.sid);
  await card.getByRole("button", { name: "Save Credentials" }).click();
  await expect(card.getByText("Both Account SID and Auth Token are required")).toBeVisible();

  // A token Twilio refuses: saved, but the card says plainly that Twilio refused the pair.
  await card.getByLabel("Auth Token").fill("not-the-token");
  const releaseSave = await hold(page, "**/api/credentials/twilio", "PUT");
  await card.getByRole("button", { name: "Save Credentials" }).click();
  await expect(status).toHaveText("Saving credentials...");
  await expect(card.getByRole("button", { name: "Save Credentials" })).toBeDisabled();
  releaseSave();
  await expect(status).toContainText("Saved, but verification failed");
  await expect(status).toContainText("Twilio refused this Account SID and Auth Token. Check both in the Twilio Console.");
  await expect(page.locator('[data-sonner-toast][data-type="error"]').filter({ hasText: "Twilio refused these credentials" })).toBeVisible();
  await expect(page.locator("[data-sonner-toast]").filter({ hasText: "Twilio Credentials Saved" })).toHaveCount(0);
  await expect(page.locator("body")).not.toContainText("Authenticate");
  // …and still says so after a reload.
  await page.reload();
  await expect(status).toContainText("Saved, but verification failed");
  await expect(status).toContainText("Twilio refused this Account SID and Auth Token.");

  await card.getByLabel("Account SID").fill(account.sid);
  await card.getByLabel("Auth Token").fill(account.authToken);
  await card.getByRole("button", { name: "Update Credentials" }).click();
  await expect(status).toContainText("Credentials saved and verified");
  await expect(status).toContainText("Contact centre");
  await expect(card.getByLabel("Auth Token")).toHaveValue("");
  const verify = server.twilio.requests.filter((r) => r.operation === "account" && r.username === account.sid);
  expect(verify.length).toBe(2);
  await expectToast(page, "Twilio Credentials Saved");

  await page.reload();
  await expect(status).toContainText("Existing credentials found");
  await expect(status).toContainText(`${account.sid.slice(0, 3)}••••${account.sid.slice(-4)}`);
  await expect(card.getByLabel("Auth Token")).toHaveAttribute("placeholder", "•".repeat(32));
  await expect(card.getByRole("button", { name: "Update Credentials" })).toBeVisible();
  await expect(page.locator("body")).not.toContainText(account.authToken);
  const { violations } = await new AxeBuilder({ page }).include("main").analyze();
  expect(violations.map((v) => v.id)).toEqual([]);

  // Only one half stored (the token was removed elsewhere): both must be entered again.
  expect((await page.request.delete("/api/credentials/twilio_auth_token")).status()).toBe(204);
  await page.reload();
  await expect(status).toHaveText("Please re-enter both credentials.");
  await expect(card.getByRole("button", { name: "Save Credentials" })).toBeVisible();
});

test("Twilio credential failures: loading and saving", async ({ page, server, user: _user }) => {
  // The server is unreachable for this request (and its retries).
  await page.route("**/api/credentials/twilio_auth_token", (route) => route.abort("connectionfailed"));
  await page.goto("/settings");
  await expectToast(page, "Failed to fetch existing Twilio credentials.");
  await expect(page.getByTestId("twilio-status")).toHaveText("Failed to fetch existing Twilio credentials.");
  await page.unrouteAll();

  // The session ends (signed out in another tab) before saving.
  await page.context().clearCookies();
  await page.getByLabel("Account SID").fill(server.twilio.account.sid);
  await page.getByLabel("Auth Token").fill(server.twilio.account.authToken);
  await page.getByRole("button", { name: "Save Credentials" }).click();
  await expectToast(page, "Failed to save Twilio credentials: Authentication required. Please sign in again.");
});
