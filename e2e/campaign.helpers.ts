import type { Locator, Page } from "@playwright/test";

/** Fills Create campaign (open as `sheet`): the name, the assistant and number picked from their lists, the contacts as a CSV file. */
export async function fillCampaignSheet(page: Page, sheet: Locator, fields: { name: string; assistant: string; number: string; csv: string }) {
  await sheet.getByLabel("Name").fill(fields.name);
  await sheet.getByLabel("Assistant").click();
  await page.getByRole("option", { name: fields.assistant }).click();
  await sheet.getByLabel("Phone number").click();
  await page.getByRole("option", { name: fields.number }).click();
  await sheet.getByLabel("Contacts (CSV)").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(fields.csv) });
}
