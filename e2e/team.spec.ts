/**
 * Teams end to end: an owner invites a supervisor from Settings (no SMTP here, so the link is
 * shown to copy), the invited person signs up through the link in another browser context and
 * joins, then works in the owner's organisation with a supervisor's powers only.
 */
import { eq } from "drizzle-orm";
import type { Page } from "@playwright/test";
import { assistants, calls, user as users } from "../src/server/db/schema.ts";
import { TEAM_MESSAGES } from "../src/shared/team.ts";
import { TwilioCaller } from "../tests/fakes/twilio-caller.ts";
import { expect, expectToast, startTestServer, test } from "./fixtures.ts";
import { phoneNumberFor } from "./phone.helpers.ts";
import { fillSignUpForm } from "./sign-up.helpers.ts";

const GREETING = "Thanks for calling the team line.";

async function signUpThroughForm(page: Page, email: string) {
  await fillSignUpForm(page, { firstName: "Walter", lastName: "Skinner", email, password: "correct-horse-battery" });
  await page.getByRole("button", { name: "Create Account" }).click();
}

test("an owner invites a supervisor, who joins through the link, watches the team's call on the board and cannot see its credentials", async ({ page, user, server, browser }) => {
  test.setTimeout(240_000);
  // A finished call of the owner's organisation (a user's first organisation takes their id).
  const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
  const organizationId = owner!.id;
  const [ava] = await server.db.insert(assistants).values({ organizationId, name: "Team Ava", model: "gpt-realtime" }).returning();
  await server.db.insert(calls).values({
    organizationId,
    assistantId: ava!.id,
    assistantName: "Team Ava",
    startTime: new Date(Date.now() - 120_000),
    endTime: new Date(Date.now() - 60_000),
    endedReason: "User ended call",
    cost: 0.05,
    logs: { isTest: true, transcript: [], toolsUsed: [] },
  });

  // The owner invites by the UI.
  await page.goto("/settings");
  const team = page.getByTestId("team-card");
  await expect(team.getByTestId("member-row")).toHaveCount(1);
  const invitee = `skinner-${Date.now()}@example.com`;
  await team.getByLabel("E-mail").fill(invitee);
  await team.getByRole("combobox", { name: "Role", exact: true }).click();
  await page.getByRole("option", { name: "Supervisor" }).click();
  await team.getByRole("button", { name: "Invite" }).click();
  await expectToast(page, TEAM_MESSAGES.invitedNoMail);
  const link = (await team.getByTestId("invitation-link").textContent())!;
  expect(link).toContain("/invite?token=");
  await expect(team.getByTestId("invitation-row")).toContainText(invitee);

  // The owner, signed in as someone else, opening the link is told why they cannot join, not offered Join.
  await page.goto(link);
  await expect(page.getByTestId("invite-wrong-account")).toHaveText(TEAM_MESSAGES.wrongAccount(user.email, invitee));
  await expect(page.getByRole("button", { name: /^Join/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: TEAM_MESSAGES.signOutToAccept })).toBeVisible();

  // The invited person, in a browser of their own: sign up through the link, log in, join.
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const other = await context.newPage();
    await other.goto(link);
    await expect(other.getByTestId("invited-address")).toHaveText(TEAM_MESSAGES.invitedAddress(invitee));
    await other.getByRole("link", { name: "Sign up" }).click();
    await expect(other).toHaveURL(/\/signup\?next=/);
    // Sign-up signs them in and brings them back to the invitation.
    await signUpThroughForm(other, invitee);
    await expect(other).toHaveURL(/\/invite\?token=/);
    await expect(other.getByText(TEAM_MESSAGES.signedInAs(invitee))).toBeVisible();
    await expect(other.getByText(`You are invited to join ${user.name}'s team as Supervisor.`)).toBeVisible();
    await other.getByRole("button", { name: `Join ${user.name}'s team` }).click();
    await expectToast(other, TEAM_MESSAGES.joined);
    await expect(other).toHaveURL(/\/assistants$/);
    await expect(other.getByTestId("current-organization")).toHaveText("Dana Scully's team");

    // A supervisor reads the team's assistants but changes nothing.
    await expect(other.getByTestId("assistant-row")).toContainText("Team Ava");
    await expect(other.getByRole("button", { name: "Create new" })).toHaveCount(0);
    await expect(other.getByRole("button", { name: "Edit assistant" })).toHaveCount(0);

    // The owner's calls, and a phone call to the owner's number watched on the live board.
    await other.getByRole("link", { name: "Calls" }).click();
    await expect(other.getByTestId("call-row").first()).toContainText("Team Ava");
    const { account, number } = await phoneNumberFor(page, server, user.email, GREETING);
    const call = await TwilioCaller.dial({ origin: server.url, publicUrl: server.config.publicUrl, authToken: account.authToken, to: number, from: "+14155550123" });
    expect(call.webhookStatus).toBe(200);
    await call.openStream();
    void call.speak(Buffer.alloc(8 * 60_000, 0xff)); // a minute of µ-law silence
    try {
      await other.getByRole("link", { name: "Live" }).click();
      await expect(other).toHaveURL(/\/live$/);
      const row = other.getByTestId("live-call-row");
      await expect(row).toHaveCount(1);
      await expect(row).toContainText("Phone Ava");
      await row.click();
      const panel = other.getByRole("dialog", { name: "Live call: Phone Ava" });
      await expect(panel.getByRole("list", { name: "Transcript" }).getByText(GREETING)).toBeVisible();
      await expect(row.getByTestId("watchers")).toHaveText("1");
      await other.keyboard.press("Escape");
    } finally {
      await call.hangUp();
    }

    // No credentials: the card is absent and the API refuses.
    await other.getByRole("link", { name: "Settings" }).click();
    await expect(other.getByTestId("team-card")).toBeVisible();
    await expect(other.getByText("OpenAI API Key")).toHaveCount(0);
    await expect(other.getByTestId("api-keys-card")).toHaveCount(0);
    const refused = await context.request.get(`${server.url}/api/credentials/openai_api_key`);
    expect(refused.status()).toBe(403);

    // They came to join this team: no empty team of their own was made for them.
    const theirs = ((await (await context.request.get(`${server.url}/api/organizations`)).json()) as { data: { name: string }[] }).data;
    expect(theirs.map((o) => o.name)).toEqual(["Dana Scully's team"]);
  } finally {
    await context.close();
  }

  // The owner sees the new member, and cannot demote the last owner.
  await page.goto("/settings");
  await expect(team.getByTestId("member-row")).toHaveCount(2);
  await expect(team.getByTestId("invitation-row")).toHaveCount(0);
  await team.getByRole("combobox", { name: `Role of ${user.name}` }).click();
  await page.getByRole("option", { name: "Admin" }).click();
  await expectToast(page, TEAM_MESSAGES.lastOwner);
});

test("an invite-only server hides sign-up from the login page and refuses it on its own page", async ({ browser }) => {
  const server = await startTestServer({ SIGNUP: "invite" });
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const page = await context.newPage();
    const options = page.waitForResponse((res) => res.url().endsWith("/api/account/options"));
    await page.goto("/login");
    await options;
    await expect(page.getByRole("button", { name: "Log In" })).toBeVisible();
    await expect(page.getByRole("link", { name: "Sign up" })).toHaveCount(0);
    await page.goto("/signup");
    await expect(page.getByTestId("signup-closed")).toHaveText(TEAM_MESSAGES.signupClosed);
  } finally {
    await context.close();
    await server.close();
  }
});
