import { callsSettingsCard, expect, expectToast, test } from "./fixtures.ts";
import { PHONE_BUSY_MESSAGE } from "../src/shared/calls.ts";
import { SETTINGS_TEXTS } from "../src/shared/settings.ts";

/** Settings → Calls: the message phone callers hear when every line is taken. */
test("Settings: the busy message is saved, and emptying it puts back the default", async ({ page, user: _user }) => {
  await page.goto("/settings");
  const calls = callsSettingsCard(page);
  const message = calls.getByLabel("Message when all lines are busy");
  await expect(message).toHaveValue(PHONE_BUSY_MESSAGE);

  await message.fill("Our team is on other calls. Please ring again soon.");
  await calls.getByRole("button", { name: "Save message" }).click();
  await expectToast(page, "Busy message saved");
  expect(await (await page.request.get("/api/settings/busy-message")).json()).toEqual({ busy_message: "Our team is on other calls. Please ring again soon." });

  await message.fill("");
  await calls.getByRole("button", { name: "Save message" }).click();
  await expect(message).toHaveValue(PHONE_BUSY_MESSAGE);
  await page.reload();
  await expect(message).toHaveValue(PHONE_BUSY_MESSAGE);
});

test("Settings: a setting whose value cannot be read says so, and Try again reads it", async ({ page, user: _user }) => {
  let refuse = true;
  await page.route("**/api/settings/busy-message", (route) =>
    refuse && route.request().method() === "GET"
      ? route.fulfill({ status: 429, json: { error: { code: "rate_limited", message: "Too many requests. Please try again in 30 seconds." } } })
      : route.fallback(),
  );
  await page.goto("/settings");
  const calls = callsSettingsCard(page);
  const message = calls.getByLabel("Message when all lines are busy");
  // A 4xx, which the client does not retry (a retry waits while the page is hidden, as a headless one can be).
  await expect(calls.getByRole("alert")).toHaveText(`${SETTINGS_TEXTS.loadFailed} Too many requests. Please try again in 30 seconds.${SETTINGS_TEXTS.tryAgain}`);
  await expect(message).toBeDisabled();

  refuse = false;
  await calls.getByRole("button", { name: SETTINGS_TEXTS.tryAgain }).click();
  await expect(message).toHaveValue(PHONE_BUSY_MESSAGE);
  await expect(message).toBeEnabled();
  await expect(calls.getByRole("alert")).toHaveCount(0);
});
