import { callsSettingsCard, expect, expectToast, RATE_LIMITED_MESSAGE, refuseReads, test } from "./fixtures.ts";
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
  const allow = await refuseReads(page, "**/api/settings/busy-message");
  await page.goto("/settings");
  const calls = callsSettingsCard(page);
  const message = calls.getByLabel("Message when all lines are busy");
  await expect(calls.getByRole("alert")).toHaveText(`${SETTINGS_TEXTS.loadFailed} ${RATE_LIMITED_MESSAGE}${SETTINGS_TEXTS.tryAgain}`);
  await expect(message).toBeDisabled();

  allow();
  await calls.getByRole("button", { name: SETTINGS_TEXTS.tryAgain }).click();
  await expect(message).toHaveValue(PHONE_BUSY_MESSAGE);
  await expect(message).toBeEnabled();
  await expect(calls.getByRole("alert")).toHaveCount(0);
});
