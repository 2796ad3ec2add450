import { OUTBOUND_TEXTS } from "../src/shared/outbound.ts";
import { attachFarEnd } from "../tests/fakes/twilio-far-end.ts";
import { expect, expectToast, test } from "./fixtures.ts";
import { saveCallingKeys } from "./phone.helpers.ts";

/**
 * An answered outbound call end to end: Phone Numbers → a row's "Call" with a variable; the
 * fake Twilio places the call and its far end answers (Twilio's signed callbacks and voice
 * webhook, then a simulated media stream over real HTTP and WebSocket) against the fake OpenAI;
 * the callee hears the first message with its variables filled and hangs up; the call is on the
 * Calls page as an outbound call with its transcript.
 */

const CALLEE = "+15550007001";
const OURS = "+14155550177";

test("Phone Numbers → Call: the callee answers, hears the first message with its variables filled, and the outbound call shows on the Calls page", async ({ page, server, user: _user }) => {
  test.setTimeout(150_000);
  const account = await saveCallingKeys(page, server);
  const assistant = await page.request.post("/api/assistants", {
    data: { name: "Reminder Ava", instructions: "Remind {{first_name}} of the appointment.", first_message: "Hi {{first_name}}, this is Ava calling {{called_number}}." },
  });
  expect(assistant.status()).toBe(201);
  server.twilio.setAvailable("US", [OURS]);
  const assistantId = ((await assistant.json()) as { id: string }).id;
  const bought = await page.request.post("/api/phone-numbers", { data: { country_code: "US", assistant_id: assistantId } });
  expect(bought.status(), await bought.text()).toBe(201);
  // The far end answers every call (the default) and opens the media stream.
  const farEnd = attachFarEnd(server.twilio, { origin: server.url, authToken: account.authToken });

  await page.goto("/phone-numbers");
  await page.getByRole("button", { name: `Actions for ${OURS}` }).click();
  await page.getByRole("menuitem", { name: "Call" }).click();
  const dialog = page.getByRole("dialog", { name: `Call from ${OURS}` });
  await dialog.getByLabel("Assistant").click();
  await page.getByRole("option", { name: "Reminder Ava" }).click();
  await dialog.getByLabel("Number to call").fill(CALLEE);
  await dialog.getByLabel("Variables").fill("first_name=Ann");
  const index = server.openai.connections.length;
  await dialog.getByRole("button", { name: "Call", exact: true }).click();
  await expect(dialog).toBeHidden();
  await expectToast(page, OUTBOUND_TEXTS.called(CALLEE));

  // Twilio was asked to call the person from our number; the callee picks up.
  const placed = await farEnd.callTo(CALLEE);
  expect(placed.from).toBe(OURS);
  const callee = await farEnd.answered(placed.sid, 15_000);
  const conn = await server.openai.connection(index, 15_000);
  const greeting = `Hi Ann, this is Ava calling ${CALLEE}.`;
  await callee.until(() => callee.heardMs >= 400, "first message heard", 15_000);
  expect(conn.receivedOf("response.create")[0]).toMatchObject({ response: { instructions: expect.stringContaining(greeting) } });
  expect(conn.receivedOf("session.update")[0]).toMatchObject({ session: { instructions: expect.stringContaining("Remind Ann of the appointment.") } });
  await farEnd.hangUp(placed.sid);
  await placed.ended;

  // ── Calls page: the outbound call, found by its direction, with the greeting in its transcript ──
  await page.goto("/calls");
  await page.getByRole("combobox", { name: "Direction" }).click();
  await page.getByRole("option", { name: "Outbound" }).click();
  await expect(page).toHaveURL(/direction=outbound/);
  const row = page.getByTestId("call-row").filter({ hasText: "Reminder Ava" });
  await expect(row).toHaveCount(1);
  await row.click();
  const panel = page.getByRole("dialog", { name: "Call Details" });
  const info = panel.getByRole("region", { name: "Call Information" });
  await expect(info.locator('[data-field="Direction"] dd')).toHaveText("Outbound");
  await expect(info.locator('[data-field="Caller"] dd')).toHaveText(OURS);
  await expect(info.locator('[data-field="Number Called"] dd')).toHaveText(CALLEE);
  await expect(panel.getByRole("region", { name: "Conversation Transcript" }).getByText(greeting)).toBeVisible();

  // Inbound only: the outbound call is filtered out.
  await page.keyboard.press("Escape");
  await expect(panel).toBeHidden();
  await page.getByRole("combobox", { name: "Direction" }).click();
  await page.getByRole("option", { name: "Inbound" }).click();
  await expect(page.getByTestId("call-row").filter({ hasText: "Reminder Ava" })).toHaveCount(0);
});
