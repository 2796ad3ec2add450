/**
 * Accounts: Forgot password? (with a real SMTP listener, and without SMTP), and Settings' profile,
 * password and account deletion, plus removing the stored OpenAI key.
 */
import { eq } from "drizzle-orm";
import { ACCOUNT_MESSAGES } from "../src/shared/account.ts";
import { createSmtpMailer } from "../src/server/auth/mailer.ts";
import { assistants, calls, credentials, tools, user as users } from "../src/server/db/schema.ts";
import { firstLink, startFakeSmtp } from "../tests/fakes/smtp-server.ts";
import { TWILIO_ERRORS } from "../tests/fakes/twilio-rest.ts";
import { expect, expectToast, startTestServer, test } from "./fixtures.ts";
import { fillSignUpForm } from "./sign-up.helpers.ts";

test("without SMTP: sign-up signs the new user in and opens the app, and Forgot password? says to ask the administrator", async ({ page }) => {
  await page.goto("/signup");
  await fillSignUpForm(page, { firstName: "Walter", lastName: "Skinner", email: `skinner-${Date.now()}@example.com`, password: "ad-skinner" });
  await page.getByRole("button", { name: "Create Account" }).click();
  await expectToast(page, ACCOUNT_MESSAGES.signupReady);
  await expect(page.locator("[data-sonner-toast]")).not.toContainText("check your email");
  await expect(page).toHaveURL(/\/assistants$/);
  await expect(page.getByTestId("current-organization")).toHaveText("Walter Skinner's team");

  await page.context().clearCookies();
  await page.goto("/login");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await expect(page).toHaveURL(/\/forgot-password$/);
  await expect(page.getByRole("status")).toHaveText(ACCOUNT_MESSAGES.resetUnavailable);
  await expect(page.getByRole("button", { name: "Send Reset Link" })).toHaveCount(0);
});

test("with SMTP: the reset e-mail's link leads to /reset-password, and the new password logs in", async ({ page }) => {
  // Its own server, a real SMTP round trip and several page loads, beside the longest specs on a busy host.
  test.slow();
  const smtp = await startFakeSmtp();
  // The e-mailed link and its redirect are built from PUBLIC_URL: the server's own address.
  const server = await startTestServer({}, { mailer: createSmtpMailer(smtp.url) });
  try {
    const email = `reyes-${Date.now()}@example.com`;
    const confirmation = smtp.nextMessage();
    expect((await page.request.post(`${server.url}/api/auth/sign-up/email`, { data: { email, password: "old-password", name: "Monica Reyes" } })).ok()).toBe(true);
    await page.goto(firstLink(await confirmation)); // confirm the address, as the user would

    await page.goto(`${server.url}/signup`);
    await fillSignUpForm(page, { firstName: "John", lastName: "Doggett", email: `doggett-${Date.now()}@example.com`, password: "agent-doggett" });
    const signupMail = smtp.nextMessage();
    await page.getByRole("button", { name: "Create Account" }).click();
    await expectToast(page, ACCOUNT_MESSAGES.signupConfirmEmail);
    await signupMail;

    await page.goto(`${server.url}/login`);
    await page.getByRole("link", { name: "Forgot password?" }).click();
    await page.getByRole("button", { name: "Send Reset Link" }).click();
    await expect(page.getByText("Please enter a valid email address.")).toBeVisible();
    await page.getByLabel("Email").fill(email);
    const mailed = smtp.nextMessage();
    await page.getByRole("button", { name: "Send Reset Link" }).click();
    await expect(page.getByRole("status")).toHaveText(ACCOUNT_MESSAGES.resetEmailSent);
    const mail = await mailed;
    expect(mail.to).toEqual([email]);

    await page.goto(firstLink(mail));
    await expect(page).toHaveURL(/\/reset-password\?token=/);
    await page.getByLabel("New password", { exact: true }).fill("new-password");
    await page.getByLabel("Confirm new password").fill("other-password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expect(page.getByText("Passwords don't match")).toBeVisible();
    await page.getByLabel("Confirm new password").fill("new-password");
    await page.getByRole("button", { name: "Reset Password" }).click();
    await expectToast(page, ACCOUNT_MESSAGES.resetDone);
    await expect(page).toHaveURL(/\/login$/);

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("new-password");
    await page.getByRole("button", { name: "Log In" }).click();
    await expect(page).toHaveURL(/\/assistants$/);

    // The link is single-use.
    await page.goto(firstLink(mail));
    await expect(page.getByRole("alert")).toHaveText(ACCOUNT_MESSAGES.resetLinkInvalid);
  } finally {
    await server.close();
    await smtp.close();
  }
});

test("Settings: change name and password", async ({ page, user }) => {
  await page.goto("/settings");
  // The profile's Name (Settings has other forms with a name, e.g. a provider's).
  const name = page.locator("form").filter({ has: page.getByRole("button", { name: "Save Name" }) }).getByLabel("Name", { exact: true });
  await expect(name).toHaveValue(user.name);
  await name.fill(" ");
  await page.getByRole("button", { name: "Save Name" }).click();
  await expect(page.getByText(ACCOUNT_MESSAGES.nameRequired)).toBeVisible();
  await name.fill("Dana K. Scully");
  await page.getByRole("button", { name: "Save Name" }).click();
  await expectToast(page, ACCOUNT_MESSAGES.nameUpdated);
  await expect(page.locator("[data-slot=sidebar-footer]")).toContainText("Dana K. Scully");

  await page.getByLabel("Current password").fill("not-my-password");
  await page.getByLabel("New password", { exact: true }).fill("queequeg-1");
  await page.getByLabel("Confirm new password").fill("queequeg-1");
  await page.getByRole("button", { name: "Change Password" }).click();
  await expect(page.getByText(ACCOUNT_MESSAGES.wrongPassword)).toBeVisible();
  await page.getByLabel("Current password").fill(user.password);
  await page.getByRole("button", { name: "Change Password" }).click();
  await expectToast(page, ACCOUNT_MESSAGES.passwordChanged);
  await expect(page.getByLabel("Current password")).toHaveValue("");

  // Still signed in here; the new password is the one that works.
  await page.reload();
  await expect(page.getByRole("heading", { name: "Account Settings" })).toBeVisible();
  await page.getByRole("button", { name: "Log out" }).click();
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill("queequeg-1");
  await page.getByRole("button", { name: "Log In" }).click();
  await expect(page).toHaveURL(/\/assistants$/);
});

test("Settings: remove the stored OpenAI key", async ({ page, server, user: _user }) => {
  expect((await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: server.openai.apiKey } })).ok()).toBe(true);
  await page.goto("/settings");
  await expect(page.getByText(/A key is stored/)).toBeVisible();
  await page.getByRole("button", { name: "Remove Key" }).click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog).toContainText("Your OpenAI API key will be deleted");
  await dialog.getByRole("button", { name: "Delete" }).click();
  await expectToast(page, "API Key Removed");
  await expect(page.getByText("No key stored yet.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Remove Key" })).toHaveCount(0);
  expect((await (await page.request.get(`${server.url}/api/credentials/openai_api_key`)).json()).exists).toBe(false);
});

test("Settings: delete my account names what goes, needs the password, and removes everything", async ({ page, server, user }) => {
  expect((await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front desk" } })).ok()).toBe(true);
  expect((await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: server.openai.apiKey } })).ok()).toBe(true);
  const [row] = await server.db.select().from(users).where(eq(users.email, user.email));
  const organizationId = row!.id;

  await page.goto("/settings");
  await page.getByRole("button", { name: "Delete My Account" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Delete your account?" });
  const list = dialog.getByRole("list", { name: "What is deleted" });
  await expect(list).toContainText("1 assistant");
  for (const what of ["0 tools", "0 phone numbers, released from your Twilio account", "0 call records with their transcripts", "0 call recordings"]) {
    await expect(list).toContainText(what);
  }
  await dialog.getByRole("button", { name: "Delete Account" }).click();
  await expect(dialog.getByText(ACCOUNT_MESSAGES.deleteConfirmRequired)).toBeVisible();
  await dialog.getByLabel("Your password").fill("not-my-password");
  await dialog.getByRole("button", { name: "Delete Account" }).click();
  await expect(dialog.getByText(ACCOUNT_MESSAGES.wrongPassword)).toBeVisible();
  expect(await server.db.select().from(assistants).where(eq(assistants.organizationId, organizationId))).toHaveLength(1);

  await dialog.getByLabel("Your password").fill(user.password);
  await dialog.getByRole("button", { name: "Delete Account" }).click();
  await expectToast(page, ACCOUNT_MESSAGES.accountDeleted);
  await expect(page).toHaveURL(/\/$/);
  for (const table of [assistants, tools, calls, credentials] as const) {
    expect(await server.db.select().from(table).where(eq(table.organizationId, organizationId))).toHaveLength(0);
  }
  await page.goto("/assistants");
  await expect(page).toHaveURL(/\/login$/);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Log In" }).click();
  await expectToast(page, "Login Failed");
});

test("Settings: a number Twilio will not release stops the deletion; the dialog says which and what to do", async ({ page, server, user }) => {
  const account = server.twilio.addAccount();
  expect((await page.request.put(`${server.url}/api/credentials/twilio`, { data: { account_sid: account.sid, auth_token: account.authToken } })).ok()).toBe(true);
  const assistant = await (await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front desk" } })).json();
  const bought = await page.request.post(`${server.url}/api/phone-numbers`, { data: { country_code: "US", assistant_id: assistant.id } });
  expect(bought.status()).toBe(201);
  const { phone_number: number } = await bought.json();

  await page.goto("/settings");
  await page.getByRole("button", { name: "Delete My Account" }).click();
  const dialog = page.getByRole("alertdialog", { name: "Delete your account?" });
  await expect(dialog.getByRole("list", { name: "What is deleted" })).toContainText("1 phone number, released from your Twilio account");
  server.twilio.failNext("release", TWILIO_ERRORS.authenticate);
  await dialog.getByLabel("Your password").fill(user.password);
  await dialog.getByRole("button", { name: "Delete Account" }).click();
  const blocked = dialog.getByRole("alert");
  await expect(blocked).toContainText(`Your account was not deleted: Twilio did not release ${number}`);
  await expect(blocked).toContainText("Delete these numbers on the Phone Numbers page and try again.");
  await expect(dialog).toBeVisible();
  expect(server.twilio.numbersOf(account.sid).map((n) => n.phoneNumber)).toEqual([number]);
  const [row] = await server.db.select().from(users).where(eq(users.email, user.email));
  expect(row).toBeDefined();
  expect(await server.db.select().from(assistants).where(eq(assistants.organizationId, row!.id))).toHaveLength(1);

  // Twilio releases it the second time: the account goes.
  await dialog.getByRole("button", { name: "Delete Account" }).click();
  await expectToast(page, ACCOUNT_MESSAGES.accountDeleted);
  expect(server.twilio.numbersOf(account.sid)).toEqual([]);
});
