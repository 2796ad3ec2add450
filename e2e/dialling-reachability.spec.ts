import { assistants, phoneNumbers } from "../src/server/db/schema.ts";
import { REACHABILITY_TEXTS } from "../src/shared/reachability.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { expect, startTestServer, test } from "./fixtures.ts";
import { userIdOf } from "./test-call.helpers.ts";

/**
 * Nobody is rung while Twilio cannot reach this server: with PUBLIC_URL on this machine and
 * TWILIO_API_BASE at Twilio itself, the Call dialog and the campaign form say so before anyone
 * tries, and Call cannot be pressed. Pointed at a Twilio-compatible endpoint, they warn instead.
 */
const OURS = "+14155550188";

for (const width of [1280, 390]) {
  test(`at ${width} px the Call dialog and campaign form say calls are not dialled while Twilio cannot reach the server`, async ({ browser }) => {
    const server = await startTestServer({ TWILIO_API_BASE: "https://api.twilio.com" });
    const context = await browser.newContext({ baseURL: server.url, viewport: { width, height: 900 } });
    try {
      const page = await context.newPage();
      const { email } = await signUp(requestPost(page.request, server.url), newAccount("Dana Scully", "e2e-"));
      const organizationId = await userIdOf(server, email);
      const [ava] = await server.db.insert(assistants).values({ organizationId, name: "Reminder Ava", model: "gpt-realtime" }).returning();
      await server.db.insert(phoneNumbers).values({ organizationId, phoneNumber: OURS, countryCode: "US", status: "active", assistantId: ava!.id, providerSid: `PN${"3".repeat(32)}` });
      const note = REACHABILITY_TEXTS.dialRefused((await (await page.request.get("/api/telephony/reachability")).json()).problem);

      await page.goto("/phone-numbers");
      await page.getByRole("button", { name: `Actions for ${OURS}` }).click();
      await page.getByRole("menuitem", { name: "Call" }).click();
      const dialog = page.getByRole("dialog", { name: `Call from ${OURS}` });
      await expect(dialog.getByTestId("dialling-notice")).toContainText(REACHABILITY_TEXTS.dialRefusedTitle);
      await expect(dialog.getByTestId("dialling-notice")).toContainText(note);
      await expect(dialog.getByRole("button", { name: "Call", exact: true })).toBeDisabled();
      await page.keyboard.press("Escape");

      await page.goto("/campaigns");
      await page.getByRole("button", { name: "Create campaign" }).click();
      await expect(page.getByRole("dialog").getByTestId("dialling-notice")).toContainText(note);
    } finally {
      await context.close();
      await server.close();
    }
  });
}

test("with TWILIO_API_BASE at a Twilio-compatible endpoint, the Call dialog warns and still dials", async ({ page, server, user }) => {
  const organizationId = await userIdOf(server, user.email);
  const [ava] = await server.db.insert(assistants).values({ organizationId, name: "Reminder Ava", model: "gpt-realtime" }).returning();
  await server.db.insert(phoneNumbers).values({ organizationId, phoneNumber: OURS, countryCode: "US", status: "active", assistantId: ava!.id, providerSid: `PN${"4".repeat(32)}` });
  await page.goto("/phone-numbers");
  await page.getByRole("button", { name: `Actions for ${OURS}` }).click();
  await page.getByRole("menuitem", { name: "Call" }).click();
  const dialog = page.getByRole("dialog", { name: `Call from ${OURS}` });
  await expect(dialog.getByTestId("dialling-notice")).toContainText(REACHABILITY_TEXTS.dialWarned(server.config.twilioApiBase));
  await expect(dialog.getByRole("button", { name: "Call", exact: true })).toBeEnabled();
});
