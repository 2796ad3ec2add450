import { OUTBOUND_ENDED, OUTBOUND_TEXTS } from "../src/shared/outbound.ts";
import { NO_TALK_TIME } from "../src/shared/call-records.ts";
import { attachFarEnd } from "../tests/fakes/twilio-far-end.ts";
import { expect, expectToast, test } from "./fixtures.ts";
import { saveCallingKeys } from "./phone.helpers.ts";

/**
 * An outbound call nobody answers yet: the Calls page shows it Ringing (not In progress) with no
 * running duration, and its record's Cancel call stops it at the (fake) Twilio; it then shows
 * Cancelled, still with no talk time, and the button is gone.
 */

const CALLEE = "+15550007002";
const OURS = "+14155550178";

test("a ringing outbound call shows Ringing with no duration, and Cancel call on its record stops it", async ({ page, server, user: _user }) => {
  test.setTimeout(120_000);
  const account = await saveCallingKeys(page, server);
  const assistant = await page.request.post("/api/assistants", { data: { name: "Ringing Ava", instructions: "Remind the callee of the appointment." } });
  expect(assistant.status()).toBe(201);
  server.twilio.setAvailable("US", [OURS]);
  const assistantId = ((await assistant.json()) as { id: string }).id;
  const bought = await page.request.post("/api/phone-numbers", { data: { country_code: "US", assistant_id: assistantId } });
  expect(bought.status(), await bought.text()).toBe(201);
  const numberId = ((await bought.json()) as { id: string }).id;
  // Nobody picks up: the phone rings until the call is cancelled.
  const farEnd = attachFarEnd(server.twilio, { origin: server.url, authToken: account.authToken });
  farEnd.script(CALLEE, "ring");
  const placed = await page.request.post("/api/calls/outbound", { data: { assistant_id: assistantId, phone_number_id: numberId, to: CALLEE } });
  expect(placed.status(), await placed.text()).toBe(201);
  const far = await farEnd.callTo(CALLEE);

  await page.goto("/calls");
  const row = page.getByTestId("call-row").filter({ hasText: "Ringing Ava" });
  await expect(row.getByText("Ringing", { exact: true })).toBeVisible({ timeout: 15_000 });
  await expect(row.getByText("In progress")).toHaveCount(0);
  // The Duration column (Date, Type, Customer, Assistant, Version, Direction, Duration): no running clock.
  const duration = row.getByRole("cell").nth(6);
  await expect(duration).toHaveText(NO_TALK_TIME);
  await row.click();
  // The open call's link is in the address bar.
  const callId = ((await placed.json()) as { id: string }).id;
  await expect(page).toHaveURL(new RegExp(`[?&]call=${callId}`));
  const panel = page.getByRole("dialog", { name: "Call Details" });
  const info = panel.getByRole("region", { name: "Call Information" });
  await expect(info.locator('[data-field="Status"] dd')).toHaveText("Ringing");
  await expect(info.locator('[data-field="Duration"] dd')).toHaveText(NO_TALK_TIME);
  // No version yet: it is not the draft that rings.
  await expect(info.locator('[data-field="Version"] dd')).not.toHaveText("Draft");

  await panel.getByRole("button", { name: OUTBOUND_TEXTS.cancel }).click();
  await expectToast(page, OUTBOUND_TEXTS.cancelled);
  await far.ended;
  expect(far.status).toBe("canceled");
  await expect(info.locator('[data-field="Status"] dd')).toHaveText(OUTBOUND_ENDED.cancelled);
  await expect(info.locator('[data-field="Duration"] dd')).toHaveText(NO_TALK_TIME);
  await expect(panel.getByRole("button", { name: OUTBOUND_TEXTS.cancel })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await expect(page).not.toHaveURL(/call=/);
  await expect(row.getByText(OUTBOUND_ENDED.cancelled, { exact: true })).toBeVisible();
});
