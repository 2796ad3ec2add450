/**
 * The live board end to end: a simulated phone call (Twilio's webhook and media
 * stream, the real server, the fake OpenAI) is watched from /live in one browser context, while
 * another account's context must not see it. The supervisor's microphone is Chromium's fake
 * one playing a WAV spoken by espeak-ng.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "@playwright/test";
import { eq } from "drizzle-orm";
import { chromiumArgs } from "../playwright.config.ts";
import { calls, user as users } from "../src/server/db/schema.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { mulawToPcm16 } from "../src/server/voice/audio.ts";
import { LIVE_TEXTS, STUCK_RULES } from "../src/shared/live.ts";
import { axeViolations, isSerious } from "../tests/a11y-pages.ts";
import { TwilioCaller } from "../tests/fakes/twilio-caller.ts";
import { expect, expectToast, test, type TestServer } from "./fixtures.ts";
import { phoneNumberFor } from "./phone.helpers.ts";
import { openTestCall, storeOpenAiKey } from "./test-call.helpers.ts";

/** espeak-ng speaks the supervisor's line; sox makes it what a microphone delivers (48 kHz mono 16-bit). */
function makeSupervisorWav(): { dir: string; wav: string } {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-live-"));
  const spoken = join(dir, "spoken.wav");
  const wav = join(dir, "supervisor.wav");
  execFileSync("espeak-ng", ["-v", "en-us", "-s", "150", "-w", spoken, "Hello, this is the supervisor. I can help you with your order."]);
  execFileSync("sox", [spoken, "-r", "48000", "-c", "1", "-b", "16", wav, "pad", "0", "0.3"]);
  return { dir, wav };
}

// Written when a worker loads this file, so the launch options below can name it.
const audio = process.env.TEST_WORKER_INDEX === undefined ? { dir: "", wav: "supervisor.wav" } : makeSupervisorWav();
test.afterAll(() => {
  if (audio.dir) rmSync(audio.dir, { recursive: true, force: true });
});

test.use({
  launchOptions: {
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...chromiumArgs, "--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${audio.wav}`, "--autoplay-policy=no-user-gesture-required"],
  },
});

const CALLER = "+14155550123";
const GREETING = "Thanks for calling, this is Ava.";

/** A second account, signed in in its own browser context. */
async function otherAccount(browser: Browser, server: TestServer) {
  const context = await browser.newContext({ baseURL: server.url });
  await signUp(requestPost(context.request, server.url), newAccount("Other Owner", "other"));
  return context;
}

/** Whether a WebSocket to `path` opens from this page (the server answers 404 before the upgrade otherwise). */
function socketOpens(page: Page, path: string): Promise<boolean> {
  return page.evaluate(
    (url) =>
      new Promise<boolean>((resolve) => {
        const ws = new WebSocket(url);
        ws.onopen = () => {
          ws.close();
          resolve(true);
        };
        ws.onclose = () => resolve(false);
      }),
    path.replace(/^http/, "ws"),
  );
}

test("a phone call on the live board: it appears, its transcript streams, Listen plays it, Guide reaches the assistant, Take over talks to the caller, End call ends it", async ({ page, server, user, browser }) => {
  test.setTimeout(180_000);
  const { account, number } = await phoneNumberFor(page, server, user.email, GREETING);
  server.openai.script = { replies: ["Sure, let me look into your order.", "I will offer you a refund."] };

  // The board first: empty, with the stuck rules named under it.
  await page.goto("/live");
  await expect(page.getByRole("heading", { name: "Live", level: 1 })).toBeVisible();
  await expect(page.getByText(LIVE_TEXTS.empty)).toBeVisible();
  for (const rule of Object.values(STUCK_RULES)) await expect(page.getByTestId("stuck-rules")).toContainText(rule);
  const other = await otherAccount(browser, server);
  const otherPage = await other.newPage();
  await otherPage.goto("/live");
  await expect(otherPage.getByText(LIVE_TEXTS.empty)).toBeVisible();

  // ── The call: the caller's phone streams (silence) in real time all along ─────────────────
  const index = server.openai.connections.length;
  const call = await TwilioCaller.dial({ origin: server.url, publicUrl: server.config.publicUrl, authToken: account.authToken, to: number, from: CALLER });
  expect(call.webhookStatus).toBe(200);
  await call.openStream();
  const conn = await server.openai.connection(index, 10_000);
  // Every µ-law frame the phone is sent, decoded: the supervisor's voice must reach it later.
  const received: Int16Array[] = [];
  call.ws!.on("message", (data) => {
    const message = JSON.parse(data.toString()) as { event: string; media?: { payload: string } };
    if (message.event === "media") received.push(mulawToPcm16(Buffer.from(message.media!.payload, "base64")));
  });
  void call.speak(Buffer.alloc(8 * 100_000, 0xff)); // 100 s of µ-law silence

  // The call appears on the owner's board, with its numbers; the duration ticks.
  const row = page.getByTestId("live-call-row");
  await expect(row).toHaveCount(1);
  await expect(row).toContainText("Phone Ava");
  await expect(row.locator("[data-kind]")).toHaveText("Phone");
  await expect(row.getByTestId("caller-number")).toHaveText(CALLER);
  await expect(row.getByTestId("called-number")).toHaveText(number);
  await expect(row.getByTestId("live-duration")).toHaveText(/^0:0[1-9]$/);
  await expect(row.getByTestId("last-said")).toContainText(`Assistant: ${GREETING}`);
  const callId = (await row.getAttribute("data-call-id"))!;

  // Another account sees nothing, and cannot open the call's socket.
  await expect(otherPage.getByText(LIVE_TEXTS.empty)).toBeVisible();
  await expect(otherPage.getByTestId("live-call-row")).toHaveCount(0);
  expect(await socketOpens(otherPage, `${server.url}/api/live/calls/${callId}`)).toBe(false);
  expect(await socketOpens(otherPage, `${server.url}/api/live/board`)).toBe(true);
  await other.close();

  // ── Open it: the transcript so far, then as it is spoken ────────────────────────────────
  await row.click();
  const panel = page.getByRole("dialog", { name: "Live call: Phone Ava" });
  await expect(panel).toBeVisible();
  const transcript = panel.getByRole("list", { name: "Transcript" });
  await expect(transcript.getByText(GREETING)).toBeVisible();
  await expect(row.getByTestId("watchers")).toHaveText("1");
  conn.hear("Where is my order 42?");
  await expect(transcript.getByTestId("transcript-entry").filter({ hasText: "Where is my order 42?" })).toHaveAttribute("data-type", "user");
  await expect(transcript.getByText("Sure, let me look into your order.")).toBeVisible();
  await expect(row.getByTestId("last-said")).toContainText("Assistant: Sure, let me look into your order.");
  // The board with a call and its open panel pass the accessibility rules the other pages do.
  expect((await axeViolations(page)).filter(isSerious)).toEqual([]);

  // ── Listen: the call's audio plays in this browser ───────────────────────────────────────
  const controls = panel.getByRole("group", { name: "Call controls" });
  await controls.getByRole("button", { name: "Listen", exact: true }).click();
  await expect(controls.getByRole("button", { name: "Stop listening", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(transcript.getByText(`${user.name} started listening`)).toBeVisible();
  const heard = panel.getByTestId("heard");
  await expect.poll(async () => Number(await heard.getAttribute("data-played-ms")), { timeout: 10_000 }).toBeGreaterThan(1000);
  await controls.getByRole("button", { name: "Stop listening", exact: true }).click();
  await expect(controls.getByRole("button", { name: "Listen", exact: true })).toHaveAttribute("aria-pressed", "false");
  await expect(transcript.getByText(`${user.name} stopped listening`)).toBeVisible();

  // ── Guide: shown as "Supervisor: ..." and given to the model as a system item ──────────────
  const guideBox = panel.getByRole("textbox", { name: "Guidance for the assistant" });
  await guideBox.fill("Offer the caller a refund");
  await panel.getByRole("button", { name: "Guide", exact: true }).click();
  const guideLine = transcript.getByTestId("transcript-entry").filter({ hasText: "Supervisor: Offer the caller a refund" });
  await expect(guideLine).toHaveAttribute("data-supervisor", "guide");
  await expect(guideLine.getByTestId("entry-type")).toHaveText("Supervisor");
  await expect(guideBox).toHaveValue("");
  await conn.until(
    () => conn.receivedOf("conversation.item.create").some((e) => JSON.stringify(e["item"]).includes("Offer the caller a refund") && (e["item"] as { role?: string }).role === "system"),
    5000,
    "guide as a system item",
  );

  // ── Take over: the assistant goes quiet; the supervisor's microphone reaches the caller ─────
  await conn.until(() => !conn.hasActiveResponse, 10_000, "assistant done speaking");
  const responsesBefore = conn.receivedOf("response.create").length;
  const framesBefore = received.length;
  await controls.getByRole("button", { name: "Take over", exact: true }).click();
  await expect(controls.getByRole("button", { name: "Hand back", exact: true })).toBeVisible();
  await expect(transcript.getByText(`${user.name} took over the call`)).toBeVisible();
  await expect(row.getByTestId("taken-over")).toHaveText(`${user.name} took over`);
  // Two seconds of audio sent to the phone, with speech in it (the fake microphone's WAV).
  await call.until(() => received.length - framesBefore >= 100, "supervisor audio at the phone", 15_000);
  const loudest = Math.max(...received.slice(framesBefore).map((frame) => Math.max(...Array.from(frame, Math.abs))));
  expect(loudest).toBeGreaterThan(2000);
  // The caller speaks meanwhile: the assistant does not answer.
  conn.hear("Can I get a refund?");
  await expect(transcript.getByTestId("transcript-entry").filter({ hasText: "Can I get a refund?" })).toHaveAttribute("data-type", "user");
  expect(conn.receivedOf("response.create").length).toBe(responsesBefore);
  expect(conn.hasActiveResponse).toBe(false);
  // The supervisor hears the caller while in control.
  await expect.poll(async () => Number(await panel.getByTestId("heard").getAttribute("data-played-ms")), { timeout: 10_000 }).toBeGreaterThan(500);

  await controls.getByRole("button", { name: "Hand back", exact: true }).click();
  await expect(transcript.getByText(`${user.name} handed the call back to the assistant`)).toBeVisible();
  await expect(controls.getByRole("button", { name: "Take over", exact: true })).toBeEnabled();
  await expect(row.getByTestId("taken-over")).toHaveCount(0);

  // Nobody speaks for a while: the board flags the call, and the badge names the rule.
  const stuck = row.getByTestId("stuck-badge");
  await expect(stuck).toHaveAttribute("data-reasons", /\bsilence\b/, { timeout: 30_000 });
  // The open panel shows the same badge; its tooltip says why.
  await panel.getByTestId("stuck-badge").hover();
  await expect(page.getByRole("tooltip")).toContainText(STUCK_RULES.silence);

  // ── End call: confirmed, then the call ends and leaves the board ──────────────────────────
  await controls.getByRole("button", { name: "End call", exact: true }).click();
  const confirm = page.getByRole("alertdialog", { name: "End this call?" });
  await confirm.getByRole("button", { name: "End call", exact: true }).click();
  await expect(panel.getByTestId("watch-ended")).toHaveText(`This call has ended: ${LIVE_TEXTS.endedBySupervisor}`);
  await expect(page.getByTestId("live-call-row")).toHaveCount(0);
  await expect(page.getByText(LIVE_TEXTS.empty)).toBeVisible();
  await call.until(() => call.closed !== null, "the phone hung up", 10_000);
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  await expect.poll(async () => (await server.db.select().from(calls).where(eq(calls.organizationId, owner!.id))).map((r) => r.endedReason)).toEqual([LIVE_TEXTS.endedBySupervisor]);
  await page.keyboard.press("Escape");

  // ── Calls: the record shows the supervisor's actions in its transcript ───────────────────
  await page.goto("/calls");
  const callRow = page.getByTestId("call-row").filter({ hasText: "Phone Ava" });
  await expect(callRow.locator("[data-status]")).toHaveText(LIVE_TEXTS.endedBySupervisor);
  await callRow.click();
  const details = page.getByRole("region", { name: "Conversation Transcript" });
  const supervisorEntries = details.locator("[data-supervisor]");
  await expect(supervisorEntries.filter({ hasText: "Supervisor: Offer the caller a refund" })).toHaveAttribute("data-supervisor", "guide");
  await expect(supervisorEntries.filter({ hasText: `${user.name} took over the call` })).toHaveAttribute("data-supervisor", "take_over");
  await expect(supervisorEntries.filter({ hasText: `${user.name} handed the call back to the assistant` })).toHaveAttribute("data-supervisor", "hand_back");
  await expect(supervisorEntries.filter({ hasText: `${user.name} ended the call` })).toHaveAttribute("data-supervisor", "end_call");
});

test("a browser test call watched from a second browser context: listen, take over between the two, end", async ({ page, server, user, browser }) => {
  test.setTimeout(120_000);
  await storeOpenAiKey(page, server);
  expect((await page.request.post(`${server.url}/api/assistants`, { data: { name: "Desk Bot", first_message: "Hello from the desk." } })).ok()).toBe(true);
  // The test caller's microphone is heard but says nothing scripted; typed messages make the turns.
  server.openai.script = { replies: ["Typed words received."] };

  // The supervisor: the same account, signed in in a second context.
  const board = await browser.newContext({ baseURL: server.url });
  expect((await board.request.post(`${server.url}/api/auth/sign-in/email`, { data: { email: user.email, password: user.password } })).ok()).toBe(true);
  const supervisor = await board.newPage();
  await supervisor.goto("/live");
  await expect(supervisor.getByText(LIVE_TEXTS.empty)).toBeVisible();

  const testCall = await openTestCall(page, "Desk Bot");
  await testCall.getByRole("button", { name: "Start Call" }).click();
  await expectToast(page, "Call started successfully");
  const conn = await server.openai.connection(server.openai.connections.length - 1, 10_000);

  const row = supervisor.getByTestId("live-call-row");
  await expect(row).toHaveCount(1);
  await expect(row.locator("[data-kind]")).toHaveText("Test");
  await row.click();
  const panel = supervisor.getByRole("dialog", { name: "Live call: Desk Bot" });
  const transcript = panel.getByRole("list", { name: "Transcript" });
  await expect(transcript.getByText("Hello from the desk.")).toBeVisible();

  // What the tester types streams to the board.
  const message = testCall.getByRole("textbox", { name: "Message" });
  await message.fill("Is anyone watching?");
  await message.press("Enter");
  await expect(transcript.getByTestId("transcript-entry").filter({ hasText: "Is anyone watching?" })).toHaveAttribute("data-type", "user");
  await expect(transcript.getByText("Typed words received.")).toBeVisible();

  // Listen at the test call's 24 kHz.
  const controls = panel.getByRole("group", { name: "Call controls" });
  await controls.getByRole("button", { name: "Listen", exact: true }).click();
  await expect.poll(async () => Number(await panel.getByTestId("heard").getAttribute("data-played-ms")), { timeout: 10_000 }).toBeGreaterThan(1000);

  // Take over: the tester's panel plays the supervisor's voice while the model says nothing.
  await conn.until(() => !conn.hasActiveResponse, 10_000, "assistant done speaking");
  await expect(testCall.getByText("Assistant is speaking")).toHaveCount(0);
  await controls.getByRole("button", { name: "Take over", exact: true }).click();
  await expect(controls.getByRole("button", { name: "Hand back", exact: true })).toBeVisible();
  await expect(testCall.getByText("Assistant is speaking")).toBeVisible({ timeout: 15_000 });
  expect(conn.hasActiveResponse).toBe(false);
  await expect(testCall.getByTestId("transcript-entry").filter({ hasText: `${user.name} took over the call` })).toHaveAttribute("data-supervisor", "take_over");

  // End call from the board: both sides see it end.
  await controls.getByRole("button", { name: "End call", exact: true }).click();
  await supervisor.getByRole("alertdialog", { name: "End this call?" }).getByRole("button", { name: "End call", exact: true }).click();
  await expect(panel.getByTestId("watch-ended")).toHaveText(`This call has ended: ${LIVE_TEXTS.endedBySupervisor}`);
  await expect(supervisor.getByTestId("live-call-row")).toHaveCount(0);
  await expect(testCall.getByRole("button", { name: "Start Call" })).toBeVisible({ timeout: 15_000 });
  await board.close();
});
