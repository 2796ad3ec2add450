import type { Page } from "@playwright/test";
import { expect, expectToast, test } from "./fixtures.ts";

async function createAssistant(page: Page, name: string): Promise<string> {
  const res = await page.request.post("/api/assistants", { data: { name } });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function addTrunkAndNumber(page: Page) {
  await createAssistant(page, "Front Desk");
  await page.goto("/phone-numbers");
  await page.getByRole("tab", { name: "SIP trunks" }).click();
  await expect(page.getByText("No SIP trunks yet")).toBeVisible();
  await page.getByRole("button", { name: "Add SIP trunk" }).click();

  const dialog = page.getByRole("dialog", { name: "Add SIP trunk" });
  // What is wrong, in the user's words, before anything is sent.
  await dialog.getByLabel("Source addresses", { exact: true }).fill("203.0.113.0/33");
  await dialog.getByRole("button", { name: "Add Trunk" }).click();
  await expect(dialog.getByText("Name is required")).toBeVisible();
  await expect(dialog.getByText("“203.0.113.0/33” is not an IP address or a CIDR range", { exact: false })).toBeVisible();

  await dialog.getByLabel("Name", { exact: true }).fill("FreePBX");
  await dialog.getByLabel("Source addresses", { exact: true }).fill("203.0.113.10\n198.51.100.0/24");
  await dialog.getByLabel("Inbound username", { exact: true }).fill("freepbx");
  await dialog.getByLabel("Inbound password", { exact: true }).fill("in-secret-1");
  await dialog.getByLabel("Outbound address (SIP URI)", { exact: true }).fill("sip:pbx.example.com:5060");
  await dialog.getByLabel("Caller ID", { exact: true }).fill("+14155550100");
  await dialog.getByRole("button", { name: "Add Trunk" }).click();
  await expectToast(page, "SIP trunk added");
  const card = page.getByTestId("sip-trunk-card");
  await expect(card.getByText("FreePBX", { exact: true })).toBeVisible();

  // A SIP number linked to the assistant: nothing bought.
  await page.getByRole("button", { name: "Add SIP number" }).click();
  const numberDialog = page.getByRole("dialog", { name: "Add SIP Number" });
  await numberDialog.getByLabel("Number or extension", { exact: true }).fill("+1 415 555 0123");
  await numberDialog.getByLabel("Assistant", { exact: true }).click();
  await page.getByRole("option", { name: "Front Desk", exact: true }).click();
  await numberDialog.getByRole("button", { name: "Add SIP Number" }).click();
  await expectToast(page, "SIP number added");
  return card;
}

test("add a SIP trunk and a SIP number, and see where to point the trunk with example configuration", async ({ page, user: _user }) => {
  const card = await addTrunkAndNumber(page);
  const host = new URL(page.url()).hostname;
  await expect(card.getByTestId("sip-address")).toHaveText(new RegExp(`^sip:\\+14155550123@${host.replace(/\./g, "\\.")}:\\d+;transport=udp$`));
  await expect(card.getByTestId("sip-config-example")).toContainText("type=identify");
  await expect(card.getByTestId("sip-config-example")).toContainText("username=freepbx");
  await expect(card.getByTestId("sip-config-example")).not.toContainText("in-secret-1");
  await card.getByRole("button", { name: "FreeSWITCH (gateway)" }).click();
  await expect(card.getByTestId("sip-config-example")).toContainText('<gateway name="switchboard-freepbx">');
  await card.getByRole("button", { name: "Telnyx" }).click();
  await expect(card.getByTestId("sip-config-example")).toContainText("Telnyx portal");

  // The number's row names its trunk; the password is never shown again.
  await page.getByRole("tab", { name: "Numbers" }).click();
  const row = page.getByTestId("phone-number-row").filter({ hasText: "+1 415 555 0123" });
  await expect(row.getByRole("cell", { name: "SIP trunk: FreePBX", exact: true })).toBeVisible();
  await expect(row.getByText("Front Desk")).toBeVisible();
  await page.getByRole("tab", { name: "SIP trunks" }).click();
  await card.getByRole("button", { name: "Edit FreePBX" }).click();
  const edit = page.getByRole("dialog", { name: "Edit FreePBX" });
  await expect(edit.getByLabel("Inbound password", { exact: true })).toHaveValue("");
  await expect(edit.getByText("Leave empty to keep the saved password").first()).toBeVisible();
  // Transfers bridged here even though the PBX would take REFER: the person hears the briefing.
  await expect(edit.getByLabel("Transfers", { exact: true })).toHaveText("Hand to the phone system (REFER); bridge here if refused");
  await edit.getByLabel("Transfers", { exact: true }).click();
  await page.getByRole("option", { name: "Call the person from this server, brief them, bridge", exact: true }).click();
  await edit.getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, "SIP trunk saved");
  await card.getByRole("button", { name: "Edit FreePBX" }).click();
  await expect(page.getByRole("dialog", { name: "Edit FreePBX" }).getByLabel("Transfers", { exact: true })).toHaveText("Call the person from this server, brief them, bridge");
  await page.getByRole("dialog", { name: "Edit FreePBX" }).getByRole("button", { name: "Cancel" }).click();

  // In use: deleting says which numbers hold it.
  await card.getByRole("button", { name: "Delete FreePBX" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: /Delete/ }).click();
  await expectToast(page, /This trunk is used by \+14155550123/);
});

test("the SIP trunk card at 390 px", async ({ page, user: _user }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const card = await addTrunkAndNumber(page);
  await expect(card.getByTestId("sip-address")).toBeVisible();
  const box = await card.boundingBox();
  expect(box!.width).toBeLessThanOrEqual(390);
  // Nothing wider than the screen: the page does not scroll sideways.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});
