import { eq } from "drizzle-orm";
import { user as users } from "../src/server/db/schema.ts";
import { createCredentialsService } from "../src/server/modules/credentials/credentials.service.ts";
import { HEARD_MARGIN_MS } from "../src/server/voice/playback.ts";
import { MARK_EVERY_MS } from "../src/server/voice/transports/twilio.ts";
import { interruptedOrderScript, orderLookupTool, startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { TwilioCaller } from "../tests/fakes/twilio-caller.ts";
import { mulawSpeech } from "../tests/fakes/twilio-speech.ts";
import { expect, expectToast, test } from "./fixtures.ts";

/**
 * End to end: the user saves their Twilio credentials on Settings and buys a number
 * on Phone Numbers linked to an assistant with a tool (at the fake Twilio REST server); a
 * simulated caller (Twilio's webhook and media stream over real HTTP and WebSocket) phones it
 * against the fake OpenAI, hears the first message, makes the tool run, interrupts the answer,
 * hangs up; then the Real call is on the Calls page.
 */
let upstream: ToolUpstream;
test.beforeAll(async () => {
  upstream = await startToolUpstream();
});
test.afterAll(async () => {
  await upstream?.close();
});

const CALLER = "+14155550123";
const GREETING = "Thanks for calling, this is Ava.";

test("a caller phones a number bought in the app; the assistant greets, runs its tool, is interrupted; the Real call shows on the Calls page", async ({ page, server, user }) => {
  test.setTimeout(90_000);
  // The OpenAI key is not this test's subject (the Settings spec covers it).
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  await createCredentialsService(server.app.ctx).save(owner!.id, "openai_api_key", server.openai.apiKey);
  const api = async (url: string, data: object) => {
    const res = await page.request.post(url, { data, headers: { origin: server.url } });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()) as { id: string };
  };
  const tool = await api("/api/tools", { type: "API", http_method: "GET", parameter_format: "standard", ...orderLookupTool(upstream.origin) });
  await api("/api/assistants", { name: "Phone Ava", instructions: "Help callers.", first_message: GREETING, tool_ids: [tool.id] });

  // ── Settings: the user's own Twilio account, saved and verified at (fake) Twilio ──────────
  const account = server.twilio.addAccount({ friendlyName: "Ava's contact centre" });
  await page.goto("/settings");
  const card = page.locator("form").filter({ has: page.getByLabel("Account SID") });
  await expect(card.getByTestId("twilio-status")).toHaveText("No existing credentials found");
  await card.getByLabel("Account SID").fill(account.sid);
  await card.getByLabel("Auth Token").fill(account.authToken);
  await card.getByRole("button", { name: "Save Credentials" }).click();
  await expect(card.getByTestId("twilio-status")).toContainText("Credentials saved and verified");

  // ── Phone Numbers: buy a US number answered by Phone Ava ─────────────────────────────────
  server.twilio.setAvailable("US", ["+14155550188"]);
  await page.goto("/phone-numbers");
  await page.getByRole("button", { name: "Create New Phone Number" }).click();
  const dialog = page.getByRole("dialog", { name: "Purchase New Phone Number" });
  await dialog.getByLabel("Country").click();
  await page.getByRole("option", { name: "United States (+1)", exact: true }).click();
  await dialog.getByLabel("Assistant").click();
  await page.getByRole("option", { name: "Phone Ava", exact: true }).click();
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expectToast(page, "Phone number purchased");
  const numberRow = page.getByTestId("phone-number-row");
  await expect(numberRow.getByRole("cell").nth(0)).toHaveText("+1 415 555 0188", { useInnerText: true });
  await expect(numberRow.getByRole("cell").nth(3)).toHaveText("Phone Ava");
  const [held] = server.twilio.numbersOf(account.sid);
  expect(held).toMatchObject({ phoneNumber: "+14155550188", voiceUrl: `${server.config.publicUrl}/telephony/twilio/voice` });

  // ── The call: greeting, a question that runs the tool, an interruption of the answer ─────
  server.openai.script = interruptedOrderScript("Okay, anything else?");
  const index = server.openai.connections.length;
  const call = await TwilioCaller.dial({ origin: server.url, publicUrl: server.config.publicUrl, authToken: account.authToken, to: "+14155550188", from: CALLER });
  expect(call.webhookStatus).toBe(200);
  await call.openStream();
  const conn = await server.openai.connection(index, 10_000);

  // The first message, heard in full (400 ms of µ-law by default).
  await call.until(() => call.heardMs >= 400, "first message heard", 10_000);
  expect(conn.receivedOf("response.create")[0]).toMatchObject({ response: { instructions: expect.stringContaining(GREETING) } });

  await call.speak(mulawSpeech("Where is my order forty two?"), 1000);
  await conn.until(() => conn.receivedOf("conversation.item.create").length > 0, 10_000, "tool output");
  expect(upstream.requests.map((r) => [r.path, r.query])).toEqual([["/orders", { order_id: "42" }]]);
  const assistantItems = () => conn.items.filter((i) => i.role === "assistant").map((i) => i.id);
  await conn.until(() => assistantItems().length === 3, 10_000, "answer item");
  const [, fillerItem, answerItem] = assistantItems();

  // The caller hears the filler and about 0.7 s of the answer, then talks over it.
  await call.until(() => call.heardMs >= 400 + 800 + 700, "answer playing", 10_000);
  const clearsBefore = call.clears;
  const heardBeforeSpeaking = call.heardMs - 400 - 800;
  await call.speak(mulawSpeech("Wait, stop."), 1000);
  await call.until(() => call.clears > clearsBefore, "clear", 10_000);
  const truncate = await conn.waitFor("conversation.item.truncate");
  // The item cut is the one being heard (the answer, not the filler heard in full), at what was heard
  // of it: no earlier than when the caller spoke (less a mark's spacing), no later than the
  // clear's arrival plus the heard margin (a loaded machine delays the clear, not the cut).
  const heardAtClear = call.heardAtClear.at(-1)! - 400 - 800;
  expect(truncate["item_id"]).toBe(answerItem);
  expect(truncate["item_id"]).not.toBe(fillerItem);
  expect(truncate["audio_end_ms"]).toBeGreaterThanOrEqual(heardBeforeSpeaking - MARK_EVERY_MS);
  expect(truncate["audio_end_ms"]).toBeLessThanOrEqual(heardAtClear + HEARD_MARGIN_MS + 1);
  expect(conn.receivedOf("conversation.item.truncate")).toHaveLength(1);
  await conn.until(() => conn.sentOf("response.done").length >= 4, 10_000, "reply to the interruption");
  await call.until(() => call.heardMs >= call.heardAtClear.at(-1)! + 400, "reply heard", 10_000);
  await call.hangUp();

  // ── Calls page: the Real call with the caller's number, transcript, recording and cost ────
  await page.goto("/calls");
  const row = page.getByTestId("call-row").filter({ hasText: "Phone Ava" });
  await expect(row).toHaveCount(1);
  await expect(row.locator("td").nth(1)).toHaveText("Real");
  // A phone call shows its real cost (AI provider usage; Twilio's price follows later), not the test-call tariff.
  await expect(row.locator("td").nth(7)).toHaveText(/^\$0\.\d{4}$/);
  await expect(row.locator("td").nth(7).locator("[data-cost-basis]")).toHaveAttribute("data-cost-basis", "provider");
  await expect(row.locator("[data-status]")).toHaveText("Caller hung up");
  await row.click();

  const panel = page.getByRole("dialog", { name: "Call Details" });
  const info = panel.getByRole("region", { name: "Call Information" });
  await expect(info.locator('[data-field="Type"] dd')).toHaveText("Real");
  await expect(info.locator('[data-field="Caller"] dd')).toHaveText(CALLER);
  await expect(info.locator('[data-field="Number Called"] dd')).toHaveText("+14155550188");
  await expect(info.locator('[data-field="Provider cost"] dd')).toHaveText(/^\$0\.\d{4}$/);
  await expect(panel.getByTestId("cost-breakdown").locator('[data-field="Twilio"] dd')).toHaveText("Waiting for Twilio's price (Twilio rates a call a few minutes after it ends)");
  await expect(panel.getByRole("region", { name: "Call Audio" }).getByText("Recording available")).toBeVisible();
  const transcript = panel.getByRole("region", { name: "Conversation Transcript" });
  await expect(transcript.getByText(GREETING)).toBeVisible();
  await expect(transcript.getByText("Where is my order 42?")).toBeVisible();
  await expect(transcript.getByText("Calling tool Lookup Order")).toBeVisible();
  await expect(transcript.getByText("Wait, stop.")).toBeVisible();
});
