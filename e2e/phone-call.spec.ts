import { eq } from "drizzle-orm";
import { assistants, phoneNumbers, user as users } from "../src/server/db/schema.ts";
import { saveCredential } from "../src/server/modules/credentials/credentials.service.ts";
import { TwilioCaller } from "../tests/fakes/twilio-caller.ts";
import { mulawSpeech } from "../tests/fakes/twilio-speech.ts";
import { expect, test } from "./fixtures.ts";

/**
 * A simulated phone call (Twilio's protocol over real HTTP and WebSocket, against the fake
 * OpenAI) to a number the user owns, then the Real call on the Calls page. The number row
 * and the Twilio credentials are inserted directly: buying numbers is the phone-numbers
 * module's part.
 */
const AUTH_TOKEN = "e2e-twilio-auth-token-0123456789ab";

test("a caller phones the assistant; the Real call shows on the Calls page with the caller's number, transcript, recording and cost", async ({ page, server, user }) => {
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  const userId = owner!.id;
  await saveCredential(server.app.ctx, userId, "openai_api_key", server.openai.apiKey);
  await saveCredential(server.app.ctx, userId, "twilio_account_sid", `AC${"3".repeat(32)}`);
  await saveCredential(server.app.ctx, userId, "twilio_auth_token", AUTH_TOKEN);
  const [assistant] = await server.db
    .insert(assistants)
    .values({ userId, name: "Phone Ava", model: "gpt-realtime", instructions: "Help callers.", firstMessage: "Thanks for calling, this is Ava." })
    .returning();
  await server.db.insert(phoneNumbers).values({ userId, phoneNumber: "+15550142", countryCode: "US", status: "active", assistantId: assistant!.id });
  server.openai.script = { speechMs: 800, userSays: ["I would like to check my booking."], replies: ["Sure, your booking is confirmed."] };

  const call = await TwilioCaller.dial({ origin: server.url, publicUrl: server.config.publicUrl, authToken: AUTH_TOKEN, to: "+15550142", from: "+14155550123" });
  expect(call.webhookStatus).toBe(200);
  await call.openStream();
  await call.until(() => call.heardMs >= 400, "first message heard");
  await call.speak(mulawSpeech("I would like to check my booking."), 800);
  await call.until(() => call.heardMs >= 800, "answer heard");
  await call.hangUp();

  await page.goto("/calls");
  const row = page.getByTestId("call-row").filter({ hasText: "Phone Ava" });
  await expect(row).toHaveCount(1);
  await expect(row.locator("td").nth(1)).toHaveText("Real");
  await expect(row.locator("td").nth(5)).toHaveText("$0.05");
  await expect(row.locator("[data-status]")).toHaveText("Caller hung up");
  await row.click();

  const panel = page.getByRole("dialog", { name: "Call Details" });
  const info = panel.getByRole("region", { name: "Call Information" });
  await expect(info.locator('[data-field="Type"] dd')).toHaveText("Real");
  await expect(info.locator('[data-field="Caller"] dd')).toHaveText("+14155550123");
  await expect(info.locator('[data-field="Number Called"] dd')).toHaveText("+15550142");
  await expect(info.locator('[data-field="Cost"] dd')).toHaveText("$0.05");
  await expect(panel.getByRole("region", { name: "Call Audio" }).getByText("Recording available")).toBeVisible();
  const transcript = panel.getByRole("region", { name: "Conversation Transcript" });
  await expect(transcript.getByText("Thanks for calling, this is Ava.")).toBeVisible();
  await expect(transcript.getByText("I would like to check my booking.")).toBeVisible();
  await expect(transcript.getByText("Sure, your booking is confirmed.")).toBeVisible();
});
