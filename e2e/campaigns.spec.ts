import type { Page } from "@playwright/test";
import { eq, inArray } from "drizzle-orm";
import { calls } from "../src/server/db/schema.ts";
import { axeViolations, isSerious } from "../tests/a11y-pages.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { attachFarEnd } from "../tests/fakes/twilio-far-end.ts";
import { callsSettingsCard, expect, expectToast, test, type TestServer } from "./fixtures.ts";
import { fillCampaignSheet } from "./campaign.helpers.ts";
import { saveCallingKeys } from "./phone.helpers.ts";

/**
 * Campaigns through the page: a CSV uploaded in Create campaign, its preview and the rows the
 * server left out, the campaign listed, its contacts, then Start against the fake Twilio whose
 * far end plays each callee (here: no answer and busy, so no media stream is needed).
 */

const CSV = ["phone,first_name", "+15550002001,Ann", "not a number,Bob", "+15550002002,Cy", "+15550002003,Dee"].join("\n");

/** Twilio and OpenAI keys, an assistant and a number bought at the fake Twilio: what a campaign needs. */
/** Serious or critical axe findings on what is in front of the browser. */
async function expectAccessible(page: Page) {
  // A toast fading out is caught half-transparent; it is checked where it is made, not here.
  await expect(page.locator("[data-sonner-toast]")).toHaveCount(0, { timeout: 15_000 });
  expect((await axeViolations(page)).filter(isSerious).map((f) => `${f.id}: ${f.help} → ${f.targets.slice(0, 3).join(", ")}`)).toEqual([]);
}

async function readyToCall(page: Page, server: TestServer, phone: string) {
  const account = await saveCallingKeys(page, server);
  const assistant = await page.request.post("/api/assistants", { data: { name: "Reminder Bot", instructions: "Remind {{first_name}}." } });
  expect(assistant.status()).toBe(201);
  const assistantId = ((await assistant.json()) as { id: string }).id;
  server.twilio.setAvailable("US", [phone]);
  const number = await page.request.post("/api/phone-numbers", { data: { country_code: "US", assistant_id: assistantId } });
  expect(number.status()).toBe(201);
  return { account, assistantId, numberId: ((await number.json()) as { id: string }).id };
}

test("create a campaign from a CSV, see it listed with its contacts, start it and see the outcomes", async ({ page, server, user: _user }) => {
  const { account } = await readyToCall(page, server, "+14155550199");
  // One number is on the do-not-call list already: the server leaves its row out.
  expect((await page.request.post("/api/dnc", { data: { phone: "+15550002003" } })).status()).toBe(201);

  await page.goto("/campaigns");
  await expect(page).toHaveTitle(/^Campaigns · Switchboard/);
  await expect(page.getByText("No campaigns yet")).toBeVisible();
  await page.getByRole("button", { name: "Create new" }).click();
  const sheet = page.getByRole("dialog", { name: "Create campaign" });
  await fillCampaignSheet(page, sheet, { name: "November reminders", assistant: "Reminder Bot", number: "+14155550199", csv: CSV });

  // The preview: rows read, the variables, and what the browser already sees wrong, in the server's words.
  const preview = sheet.getByTestId("csv-preview");
  await expect(preview).toContainText("4 rows read");
  await expect(preview).toContainText("{{first_name}}");
  await expect(preview.getByTestId("invalid-rows")).toContainText("Row 2: not a number — Not an E.164 phone number");

  // The time zone starts as the browser's own, with the zones to pick from.
  const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
  await expect(sheet.getByLabel("Time zone", { exact: true })).toHaveValue(browserZone);
  await expect(page.locator('#campaign-time-zones option[value="Europe/London"]')).toHaveCount(1);
  // Calls at any hour in UTC, so the campaign dials now.
  await sheet.getByLabel("Time zone", { exact: true }).fill("UTC");
  for (const day of ["Sat", "Sun"]) await sheet.getByLabel(day, { exact: true }).check();
  await sheet.getByLabel("Window starts").fill("00:00");
  await sheet.getByLabel("Window ends").fill("23:59");
  await expectAccessible(page);
  await sheet.getByRole("button", { name: "Create campaign" }).click();

  const created = sheet.getByTestId("campaign-created");
  await expect(created).toContainText("Campaign created with 2 contacts");
  await expect(created.getByTestId("invalid-rows")).toContainText("Row 2: not a number — Not an E.164 phone number");
  await expect(created.getByTestId("invalid-rows")).toContainText("Row 4: +15550002003 — On the do-not-call list");
  await created.getByRole("button", { name: "Close" }).click();

  const row = page.getByTestId("campaign-row").filter({ hasText: "November reminders" });
  await expect(row).toContainText("Draft");
  await expect(row).toContainText("Reminder Bot");
  await expect(row).toContainText("+14155550199");
  await expect(row).toContainText("0 / 2 done");
  await expectAccessible(page);
  await row.getByRole("link", { name: "November reminders" }).click();

  await expect(page).toHaveURL(/\/campaigns\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { name: "November reminders" })).toBeVisible();
  const contacts = page.getByTestId("contact-row");
  await expect(contacts).toHaveCount(2);
  await expect(contacts.nth(0)).toContainText("+15550002001");
  await expect(contacts.nth(0)).toContainText("first_name=Ann");
  await expect(contacts.nth(1)).toContainText("+15550002002");
  await expect(page.getByTestId("count-pending")).toHaveText("2");
  await expect(page.getByRole("link", { name: "Download contacts CSV" })).toHaveAttribute("href", /\/contacts\.csv$/);

  // Start: the fake Twilio's far end answers neither call.
  const farEnd = attachFarEnd(server.twilio, { origin: server.url, authToken: account.authToken });
  farEnd.script("+15550002001", "no-answer");
  farEnd.script("+15550002002", "busy");
  await page.getByRole("button", { name: "Start" }).click();
  await expectToast(page, "Campaign started");
  await expect(page.getByTestId("count-no_answer")).toHaveText("1", { timeout: 30_000 });
  await expect(page.getByTestId("count-busy")).toHaveText("1", { timeout: 30_000 });
  await expect(contacts.nth(0).getByTestId("contact-outcome")).toHaveText("No answer");
  await expect(contacts.nth(1).getByTestId("contact-outcome")).toHaveText("Busy");
  await expect(page.getByTestId("campaign-status")).toHaveText("Completed", { timeout: 30_000 });
  await expectAccessible(page);

  // A contact's call opens on the Calls page.
  await contacts.nth(0).getByRole("link", { name: "View call" }).click();
  await expect(page).toHaveURL(/\/calls\?call=/);
  await expect(page.getByRole("dialog")).toContainText("+15550002001");
});

test("Settings: the outbound limit and the do-not-call list", async ({ page, user: _user }) => {
  await page.goto("/settings");
  const calls = callsSettingsCard(page);
  const limit = calls.getByLabel("Maximum concurrent outbound calls");
  await expect(limit).toHaveValue("10");
  await limit.fill("0");
  await calls.getByRole("button", { name: "Save", exact: true }).click();
  await expect(calls).toContainText("Maximum concurrent calls must be at least 1");
  await limit.fill("25");
  await calls.getByRole("button", { name: "Save", exact: true }).click();
  await expectToast(page, "Call settings saved");
  expect(((await (await page.request.get("/api/settings/calls")).json()) as { max_concurrent_calls: number }).max_concurrent_calls).toBe(25);

  // Allowed destinations: past the dial-safety rules, in E.164 prefixes.
  const allowed = calls.getByLabel("Allowed destinations");
  await allowed.fill("nope");
  await calls.getByRole("button", { name: "Save destinations" }).click();
  await expect(calls).toContainText("Each allowed destination is a number or prefix in E.164 form");
  await allowed.fill("+881 6\n+1900");
  await calls.getByRole("button", { name: "Save destinations" }).click();
  await expectToast(page, "Allowed destinations saved");
  expect(await (await page.request.get("/api/settings/dial-allow-list")).json()).toEqual({ allowed: ["+8816", "+1900"] });

  const dnc = page.getByTestId("dnc-card");
  await expect(dnc).toContainText("No numbers on the list.");
  const numbers = dnc.getByLabel("Numbers to add");
  await numbers.fill("+15550003001\nnope");
  await dnc.getByRole("button", { name: "Add" }).click();
  await expect(dnc).toContainText("nope: Phone number must be in E.164 format");
  await numbers.fill("+15550003001, +1 555 000 3002");
  await dnc.getByRole("button", { name: "Add" }).click();
  await expectToast(page, "2 numbers added to the do-not-call list");
  await expect(dnc.getByTestId("dnc-row")).toHaveCount(2);
  await expect(dnc).toContainText("2 numbers on the list");
  await dnc.getByRole("button", { name: "Remove +15550003002" }).click();
  await expectToast(page, "Removed from the do-not-call list");
  await expect(dnc.getByTestId("dnc-row")).toHaveCount(1);
  await expect(dnc.getByTestId("dnc-row")).toContainText("+15550003001");
});

test("the assistant form: time zone, voicemail, the do-not-call switch and the placeholders it found", async ({ page, user: _user }) => {
  await page.goto("/assistants");
  await page.getByRole("button", { name: "Create new" }).click();
  const panel = page.getByRole("dialog", { name: "Create Assistant" });
  await panel.getByLabel("Name").fill("Renewals");
  await panel.getByLabel("First Message").fill("Hi {{first_name}}, it's about your {{plan}} plan.");
  await expect(panel.getByTestId("placeholders-hint")).toContainText("Placeholders filled per call: {{first_name}}, {{plan}}.");
  await panel.getByLabel("Time zone").fill("Europe/London");
  await panel.getByLabel("If a machine answers").click();
  await page.getByRole("option", { name: "Leave this message" }).click();
  await panel.getByRole("button", { name: "Create Assistant" }).click();
  await expect(panel).toContainText("Write the message to leave after the beep");
  await panel.getByLabel("Voicemail message").fill("Please call us back, {{first_name}}.");
  await panel.getByLabel("Let the assistant add the caller to the do-not-call list").check();
  await panel.getByRole("button", { name: "Create Assistant" }).click();
  await expectToast(page, "Assistant created successfully!");

  const [saved] = ((await (await page.request.get("/api/assistants")).json()) as { data: unknown }).data as { timezone: string; voicemail: unknown; allow_do_not_call: boolean; variables: string[] }[];
  expect(saved).toMatchObject({ timezone: "Europe/London", voicemail: { action: "leave_message", message: "Please call us back, {{first_name}}." }, allow_do_not_call: true, variables: ["first_name", "plan"] });

  // An edit of something else keeps them.
  const details = page.getByRole("dialog", { name: "Renewals" });
  await expect(details).toContainText("Time zone: Europe/London");
  await details.getByRole("button", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Assistant" });
  await edit.getByLabel("Description").fill("Renewal reminders");
  await edit.getByRole("button", { name: "Save draft" }).click();
  await expectToast(page, "Saved — callers hear v1");
  const [after] = ((await (await page.request.get("/api/assistants")).json()) as { data: unknown }).data as { timezone: string; allow_do_not_call: boolean }[];
  expect(after).toMatchObject({ timezone: "Europe/London", allow_do_not_call: true });
});

test("a viewer reads campaigns and the do-not-call list but changes nothing", async ({ page, server, browser, user: _user }) => {
  const { assistantId, numberId } = await readyToCall(page, server, "+14155550198");
  const created = await page.request.post("/api/campaigns", {
    data: { name: "Read only", assistant_id: assistantId, phone_number_id: numberId, contacts_csv: "phone\n+15550004001", max_concurrent_calls: 1, schedule: { timezone: "UTC", windows: [{ days: [1], start: "09:00", end: "10:00" }] } },
  });
  expect(created.status()).toBe(201);
  expect((await page.request.post("/api/dnc", { data: { phone: "+15550004002" } })).status()).toBe(201);
  const viewer = newAccount("Val Viewer", "e2e-");
  const invited = await page.request.post("/api/team/invitations", { data: { email: viewer.email, role: "viewer" } });
  expect(invited.status()).toBe(201);
  const token = new URL(((await invited.json()) as { url: string }).url).searchParams.get("token");

  const context = await browser.newContext({ baseURL: server.url });
  try {
    await signUp(requestPost(context.request, server.url), viewer);
    expect((await context.request.post("/api/team/invitations/accept", { data: { token } })).ok()).toBe(true);
    const other = await context.newPage();
    await other.goto("/campaigns");
    await expect(other.getByTestId("campaign-row")).toContainText("Read only");
    await expect(other.getByText("Only builders can create and run campaigns.")).toBeVisible();
    await expect(other.getByRole("button", { name: "Create new" })).toHaveCount(0);
    await other.getByRole("link", { name: "Read only" }).click();
    await expect(other.getByTestId("contact-row")).toContainText("+15550004001");
    await expect(other.getByRole("button", { name: "Start" })).toHaveCount(0);
    // Downloading the contacts is an export: supervisors and up, as the calls' is.
    await expect(other.getByRole("link", { name: "Download contacts CSV" })).toHaveCount(0);

    await other.goto("/settings");
    const dnc = other.getByTestId("dnc-card");
    await expect(dnc.getByTestId("dnc-row")).toContainText("+15550004002");
    await expect(dnc.getByLabel("Numbers to add")).toHaveCount(0);
    await expect(dnc.getByRole("button", { name: /Remove/ })).toHaveCount(0);
    await expect(other.getByLabel("Maximum concurrent outbound calls")).toHaveCount(0);
  } finally {
    await context.close();
  }
});

test("a campaign's page shows success by outcome once its calls are analysed", async ({ page, server, user: _user }) => {
  const { account, assistantId, numberId } = await readyToCall(page, server, "+14155550197");
  // Both callees answer and hang up after a moment.
  attachFarEnd(server.twilio, { origin: server.url, authToken: account.authToken, talkMs: 300 });
  const always = [1, 2, 3, 4, 5, 6, 7].map((d) => ({ days: [d], start: "00:00", end: "23:59" }));
  const created = await page.request.post("/api/campaigns", {
    data: { name: "Scored", assistant_id: assistantId, phone_number_id: numberId, contacts_csv: "phone\n+15550005001\n+15550005002", max_concurrent_calls: 2, schedule: { timezone: "UTC", windows: always } },
  });
  expect(created.status()).toBe(201);
  const id = ((await created.json()) as { id: string }).id;
  expect((await page.request.post(`/api/campaigns/${id}/start`)).ok()).toBe(true);
  await expect.poll(async () => ((await (await page.request.get(`/api/campaigns/${id}`)).json()) as { status: string }).status, { timeout: 30_000 }).toBe("completed");

  await page.goto(`/campaigns/${id}`);
  await expect(page.getByText("No analysed calls yet.")).toBeVisible();

  // The analysis scored the calls (written as the analysis writes them, once the calls' own analysis has settled).
  const callIds = (((await (await page.request.get(`/api/campaigns/${id}/contacts`)).json()) as { data: { call_id: string }[] }).data).map((c) => c.call_id);
  await expect.poll(async () => (await server.db.select({ a: calls.analysis }).from(calls).where(inArray(calls.id, callIds))).every((r) => r.a?.status !== "pending"), { timeout: 30_000 }).toBe(true);
  for (const [i, callId] of callIds.entries()) {
    const analysis = { status: "done" as const, summary: null, data: {}, success: { value: i === 0 ? "pass" : "fail", reason: "Scored." }, model: "gpt-5-mini", cost: 0, completed_at: new Date().toISOString() };
    await server.db.update(calls).set({ analysis }).where(eq(calls.id, callId));
  }
  await page.reload();
  const completed = page.getByTestId("success-completed");
  await expect(completed).toContainText("Completed · 2 analysed calls");
  await expect(completed).toContainText("Pass: 1 (50%)");
  await expect(completed).toContainText("Fail: 1 (50%)");
  await expectAccessible(page);
});
