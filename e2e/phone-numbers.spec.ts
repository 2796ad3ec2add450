import { AxeBuilder } from "@axe-core/playwright";
import { and, eq } from "drizzle-orm";
import { format } from "date-fns";
import type { Page } from "@playwright/test";
import { phoneNumbers, user as users } from "../src/server/db/schema.ts";
import { formatPhoneNumber } from "../src/shared/phone-format.ts";
import { TWILIO_ERRORS, type FakeAccount } from "../tests/fakes/twilio-rest.ts";
import { newAccount, requestPost, signUp } from "../tests/sign-up.ts";
import { expect, expectToast, test, type TestServer } from "./fixtures.ts";

async function createAssistant(page: Page, name: string): Promise<string> {
  const res = await page.request.post("/api/assistants", { data: { name } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The user's own Twilio account, saved through the API as the Settings card does. */
async function saveTwilio(page: Page, server: TestServer): Promise<FakeAccount> {
  const account = server.twilio.addAccount();
  const res = await page.request.put("/api/credentials/twilio", { data: { account_sid: account.sid, auth_token: account.authToken } });
  expect(((await res.json()) as { verification: { verified: boolean } }).verification.verified).toBe(true);
  return account;
}

async function pick(page: Page, label: string, option: string) {
  await page.getByRole("dialog").getByLabel(label).click();
  await page.getByRole("option", { name: option, exact: true }).click();
}

/** Accessibility of what this page draws (the app shell's own findings are its own business). */
async function expectAccessible(page: Page, selector: string) {
  const { violations } = await new AxeBuilder({ page }).include(selector).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

const rowMenu = (page: Page, number: string) => page.getByRole("button", { name: `Actions for ${number}` });

test("buy a number, see it in the table, link another assistant, delete it", async ({ page, server, user: _user }) => {
  const account = await saveTwilio(page, server);
  await createAssistant(page, "Front Desk");
  await createAssistant(page, "After Hours");
  server.twilio.setAvailable("GB", ["+442071839001"]);

  // The spinner while the list loads.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  await page.route(/\/api\/phone-numbers\?/, async (route) => {
    await released;
    await route.fallback();
  }, { times: 1 });
  await page.goto("/phone-numbers");
  await expect(page.getByRole("status", { name: "Loading phone numbers" })).toBeVisible();
  release();

  await expect(page.getByText("No Phone Numbers Yet")).toBeVisible();
  await expect(page.getByText(/link it to one of your assistants/)).toBeVisible();
  await page.getByRole("button", { name: "Create New Phone Number" }).click();

  const dialog = page.getByRole("dialog", { name: "Purchase New Phone Number" });
  await expect(dialog).toBeVisible();
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expect(dialog.getByText("Country code is required")).toBeVisible();
  await expect(dialog.getByText("Assistant is required")).toBeVisible();
  await expectAccessible(page, "[role=dialog]");

  await dialog.getByLabel("Country").click();
  await expect(page.getByRole("option")).toHaveText(["United States (+1)", "Canada (+1)", "United Kingdom (+44)", "Australia (+61)", "Germany (+49)", "France (+33)"]);
  await page.getByRole("option", { name: "United Kingdom (+44)" }).click();
  await expect(dialog.getByText("Country code is required")).toBeHidden();
  await pick(page, "Assistant", "Front Desk");

  let releaseBuy!: () => void;
  const buyReleased = new Promise<void>((r) => (releaseBuy = r));
  await page.route("**/api/phone-numbers", async (route) => {
    if (route.request().method() === "POST") await buyReleased;
    await route.fallback();
  }, { times: 1 });
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expect(dialog.getByRole("button", { name: "Processing..." })).toBeDisabled();
  releaseBuy();
  await expectToast(page, "Phone number purchased");
  await expect(dialog).toBeHidden();

  const row = page.getByTestId("phone-number-row");
  await expect(row).toHaveCount(1);
  await expect(row.getByRole("cell")).toHaveText(["+44 20 7183 9001", "United Kingdom", "Active", "Front Desk", format(new Date(), "MMM d, yyyy"), ""], { useInnerText: true });
  await expect(row.locator("[data-slot=badge]")).toHaveAttribute("data-variant", "success");
  await expectAccessible(page, "main");
  const [held] = server.twilio.numbersOf(account.sid);
  expect(held).toMatchObject({ phoneNumber: "+442071839001", voiceUrl: `${server.config.publicUrl}/telephony/twilio/voice`, statusCallback: `${server.config.publicUrl}/telephony/twilio/status` });

  // ── Edit: the country is locked, the assistant changes ─────────────────────────────────
  await rowMenu(page, "+442071839001").click();
  await page.getByRole("menuitem", { name: "Edit" }).click();
  const edit = page.getByRole("dialog", { name: "Edit Phone Number" });
  await expect(edit.getByLabel("Country")).toBeDisabled();
  await expect(edit.getByLabel("Country")).toHaveText("United Kingdom (+44)");
  await expect(edit.getByLabel("Assistant")).toHaveText("Front Desk");
  await pick(page, "Assistant", "After Hours");
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, "Phone number updated");
  await expect(page.getByText("The phone number has been updated successfully.")).toBeVisible();
  await expect(row.getByRole("cell").nth(3)).toHaveText("After Hours");
  expect(server.twilio.numbersOf(account.sid)[0]!.friendlyName).toBe("Switchboard: After Hours");

  // ── Delete: confirm, released at Twilio, gone from the table ───────────────────────────
  await rowMenu(page, "+442071839001").click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Are you absolutely sure?" });
  await expect(confirm).toContainText("released from your Twilio account");
  await expect(confirm).toContainText("cannot be undone");
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(row).toHaveCount(1);

  await rowMenu(page, "+442071839001").click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  await confirm.getByRole("button", { name: "Delete" }).click();
  await expectToast(page, "Phone number deleted");
  await expect(page.getByText("No Phone Numbers Yet")).toBeVisible();
  expect(server.twilio.numbersOf(account.sid)).toEqual([]);
});

test("Twilio's refusals reach the user: purchase banner, failed release, missing credentials", async ({ page, server, user }) => {
  await createAssistant(page, "Support");
  await page.goto("/phone-numbers");

  // No Twilio credentials yet: the banner points to Settings.
  await page.getByRole("button", { name: "Create New", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Purchase New Phone Number" });
  await pick(page, "Country", "United States (+1)");
  await pick(page, "Assistant", "Support");
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expect(dialog.getByTestId("phone-number-banner")).toHaveText(/Twilio Account SID and Auth Token in Settings/);
  await expectToast(page, "Error");
  await expect(page.getByText("Failed to process phone number request")).toBeVisible();

  // Twilio refuses the purchase: its own message in the banner, nothing stored.
  const account = await saveTwilio(page, server);
  server.twilio.failNext("purchase", TWILIO_ERRORS.insufficientFunds);
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expect(dialog.getByTestId("phone-number-banner")).toHaveText(TWILIO_ERRORS.insufficientFunds.message);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByText("No Phone Numbers Yet")).toBeVisible();
  expect(server.twilio.numbersOf(account.sid)).toEqual([]);

  // The next try succeeds; then Twilio refuses to release it and the row stays.
  await page.getByRole("button", { name: "Create New", exact: true }).click();
  await expect(dialog.getByTestId("phone-number-banner")).toBeHidden();
  await pick(page, "Country", "United States (+1)");
  await pick(page, "Assistant", "Support");
  await dialog.getByRole("button", { name: "Purchase Phone Number" }).click();
  await expectToast(page, "Phone number purchased");
  const number = server.twilio.numbersOf(account.sid)[0]!.phoneNumber;

  server.twilio.failNext("release", { status: 400, code: 21613, message: "This phone number is still in use by an active call." });
  await rowMenu(page, number).click();
  await page.getByRole("menuitem", { name: "Delete" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expectToast(page, "Error deleting phone number");
  await expect(page.getByText("This phone number is still in use by an active call.")).toBeVisible();
  await page.getByRole("alertdialog").getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("phone-number-row")).toHaveCount(1);

  // Status badges: active green, inactive gray, pending yellow.
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  await server.db.insert(phoneNumbers).values([
    { organizationId: owner!.id, phoneNumber: "+15550000002", countryCode: "US", status: "inactive" },
    { organizationId: owner!.id, phoneNumber: "+15550000003", countryCode: "CA", status: "pending" },
  ]);
  await page.reload();
  const badge = (n: string) => page.getByTestId("phone-number-row").filter({ hasText: formatPhoneNumber(n) }).locator("[data-slot=badge]");
  await expect(badge("+15550000002")).toHaveAttribute("data-variant", "muted");
  await expect(badge("+15550000003")).toHaveAttribute("data-variant", "warning");
  await expect(badge(number)).toHaveAttribute("data-variant", "success");
  await expect(page.getByTestId("phone-number-row").filter({ hasText: "+1 555 000 0002" })).toContainText("Unassigned");
  const rows = await server.db.select().from(phoneNumbers).where(and(eq(phoneNumbers.organizationId, owner!.id), eq(phoneNumbers.phoneNumber, number)));
  expect(rows).toHaveLength(1);
});

test("another user's numbers are not shown, and a lost session is reported", async ({ page, server, user: _user, browser }) => {
  // Someone else's number in the same database.
  const other = await browser.newContext({ baseURL: server.url });
  const otherPage = await other.newPage();
  await signUp(requestPost(otherPage.request), newAccount("Other", "other-"));
  await saveTwilio(otherPage, server);
  const theirAssistant = await createAssistant(otherPage, "Theirs");
  const bought = await otherPage.request.post("/api/phone-numbers", { data: { country_code: "FR", assistant_id: theirAssistant } });
  expect(bought.status()).toBe(201);
  const theirs = (await bought.json()) as { id: string; phone_number: string };
  await other.close();

  await createAssistant(page, "Mine");
  await page.goto("/phone-numbers");
  await expect(page.getByText("No Phone Numbers Yet")).toBeVisible();
  await expect(page.locator("body")).not.toContainText(theirs.phone_number);
  expect((await page.request.delete(`/api/phone-numbers/${theirs.id}`)).status()).toBe(404);

  // Signed out elsewhere: purchasing says so and the app returns to the login page.
  await page.getByRole("button", { name: "Create New", exact: true }).click();
  await pick(page, "Country", "United States (+1)");
  await pick(page, "Assistant", "Mine");
  await page.context().clearCookies();
  await page.getByRole("dialog").getByRole("button", { name: "Purchase Phone Number" }).click();
  await expectToast(page, "Error");
  await expect(page.getByText("Authentication error. Please log out and log back in.")).toBeVisible();
  await expect(page).toHaveURL(/\/login$/);
});

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 800 } });

    test("numbers read with their country's name, grouped, and each row's actions are on screen", async ({ page, server, user }) => {
      const assistant = await createAssistant(page, "Front Desk With A Long Name");
      const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
      await server.db.insert(phoneNumbers).values([
        { organizationId: owner!.id, phoneNumber: "+447700900112", countryCode: "GB", status: "active", assistantId: assistant },
        { organizationId: owner!.id, phoneNumber: "+33612345678", countryCode: "FR", status: "active" },
      ]);
      await page.goto("/phone-numbers");
      const uk = page.getByTestId("phone-number-row").filter({ hasText: "+44 7700 900112" });
      await expect(uk.getByText("United Kingdom", { exact: true }).locator("visible=true")).toBeVisible();
      await expect(page.getByTestId("phone-number-row").filter({ hasText: "+33 6 12 34 56 78" }).getByText("France", { exact: true }).locator("visible=true")).toBeVisible();
      await expect(page.getByText("GB", { exact: true })).toHaveCount(0);

      const actions = uk.getByRole("button", { name: "Actions for +447700900112" });
      // Within the screen's width (the row itself may be below the fold): no sideways scrolling to reach it.
      const box = (await actions.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(width);
      await actions.click();
      await expect(page.getByRole("menuitem", { name: "Edit" })).toBeVisible();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    });
  });
}
