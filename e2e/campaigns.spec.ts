import { attachFarEnd } from "../tests/fakes/twilio-far-end.ts";
import { expect, expectToast, test } from "./fixtures.ts";

/**
 * Campaigns through the page: a CSV uploaded in Create campaign, its preview and the rows the
 * server left out, the campaign listed, its contacts, then Start against the fake Twilio whose
 * far end plays each callee (here: no answer and busy, so no media stream is needed).
 */

const CSV = ["phone,first_name", "+15550002001,Ann", "not a number,Bob", "+15550002002,Cy", "+15550002003,Dee"].join("\n");

test("create a campaign from a CSV, see it listed with its contacts, start it and see the outcomes", async ({ page, server, user: _user }) => {
  const account = server.twilio.addAccount();
  expect((await page.request.put("/api/credentials/twilio", { data: { account_sid: account.sid, auth_token: account.authToken } })).ok()).toBe(true);
  expect((await page.request.put("/api/credentials/openai_api_key", { data: { value: server.openai.apiKey } })).ok()).toBe(true);
  const assistant = await page.request.post("/api/assistants", { data: { name: "Reminder Bot", instructions: "Remind {{first_name}}." } });
  expect(assistant.status()).toBe(201);
  server.twilio.setAvailable("US", ["+14155550199"]);
  const number = await page.request.post("/api/phone-numbers", { data: { country_code: "US", assistant_id: ((await assistant.json()) as { id: string }).id } });
  expect(number.status()).toBe(201);
  // One number is on the do-not-call list already: the server leaves its row out.
  expect((await page.request.post("/api/dnc", { data: { phone: "+15550002003" } })).status()).toBe(201);

  await page.goto("/campaigns");
  await expect(page).toHaveTitle(/^Campaigns · Switchboard/);
  await expect(page.getByText("No campaigns yet")).toBeVisible();
  await page.getByRole("button", { name: "Create new" }).click();
  const sheet = page.getByRole("dialog", { name: "Create campaign" });
  await sheet.getByLabel("Name").fill("November reminders");
  await sheet.getByLabel("Assistant").click();
  await page.getByRole("option", { name: "Reminder Bot" }).click();
  await sheet.getByLabel("Phone number").click();
  await page.getByRole("option", { name: "+14155550199" }).click();
  await sheet.getByLabel("Contacts (CSV)").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(CSV) });

  // The preview: rows read, the variables, and what the browser already sees wrong, in the server's words.
  const preview = sheet.getByTestId("csv-preview");
  await expect(preview).toContainText("4 rows read");
  await expect(preview).toContainText("{{first_name}}");
  await expect(preview.getByTestId("invalid-rows")).toContainText("Row 2: not a number — Not an E.164 phone number");

  // Calls at any hour in UTC, so the campaign dials now.
  await sheet.getByLabel("Time zone", { exact: true }).fill("UTC");
  for (const day of ["Sat", "Sun"]) await sheet.getByLabel(day, { exact: true }).check();
  await sheet.getByLabel("Window starts").fill("00:00");
  await sheet.getByLabel("Window ends").fill("23:59");
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

  // A contact's call opens on the Calls page.
  await contacts.nth(0).getByRole("link", { name: "View call" }).click();
  await expect(page).toHaveURL(/\/calls\?call=/);
  await expect(page.getByRole("dialog")).toContainText("+15550002001");
});
