/**
 * A campaign's CSV as a new user meets it: a sample to start from, and national numbers
 * ("07700 900112") read in the country chosen for them rather than dropped.
 */
import { readFileSync } from "node:fs";
import { eq } from "drizzle-orm";
import { campaignContacts, phoneNumbers, user as users } from "../src/server/db/schema.ts";
import { CAMPAIGN_PAGE_TEXTS, CAMPAIGN_TEXTS, SAMPLE_CONTACTS_CSV } from "../src/shared/campaigns.ts";
import { fillCampaignSheet } from "./campaign.helpers.ts";
import { expect, test } from "./fixtures.ts";

const CSV = ["phone,first_name", "07700 900112,Ben", "+14155550100,Ann"].join("\n");

for (const width of [1280, 390]) {
  test.describe(`at ${width} px`, () => {
    test.use({ viewport: { width, height: 900 } });

    test("a sample CSV to download, and national numbers read in the chosen country", async ({ page, server, user }) => {
      const [owner] = await server.db.select({ id: users.id }).from(users).where(eq(users.email, user.email));
      const assistant = await page.request.post("/api/assistants", { data: { name: "Reminder Bot" } });
      const assistantId = ((await assistant.json()) as { id: string }).id;
      await server.db.insert(phoneNumbers).values({ organizationId: owner!.id, phoneNumber: "+442071839001", countryCode: "GB", status: "active", assistantId, providerSid: `PN${"6".repeat(32)}` });

      await page.goto("/campaigns");
      await page.getByRole("button", { name: "Create new" }).click();
      const sheet = page.getByRole("dialog", { name: "Create campaign" });
      const download = page.waitForEvent("download");
      await sheet.getByRole("link", { name: CAMPAIGN_PAGE_TEXTS.sampleCsv }).click();
      const sample = await download;
      expect(sample.suggestedFilename()).toBe("contacts-sample.csv");
      expect(readFileSync(await sample.path(), "utf8")).toBe(SAMPLE_CONTACTS_CSV);

      await fillCampaignSheet(page, sheet, { name: "Renewals", assistant: "Reminder Bot", number: "+442071839001", csv: CSV });
      const preview = sheet.getByTestId("csv-preview");
      await expect(preview.getByTestId("invalid-rows")).toHaveText(`Row 1: 07700 900112 — ${CAMPAIGN_TEXTS.invalidPhoneNational}`);

      await sheet.getByLabel(CAMPAIGN_PAGE_TEXTS.defaultCountry).click();
      await page.getByRole("option", { name: "United Kingdom (+44)" }).click();
      await expect(preview.getByTestId("invalid-rows")).toHaveCount(0);
      await sheet.getByRole("button", { name: "Create campaign" }).click();
      await expect(sheet.getByTestId("campaign-created")).toContainText("Campaign created with 2 contacts");
      const stored = await server.db.select({ phone: campaignContacts.phone }).from(campaignContacts);
      expect(stored.map((c) => c.phone)).toEqual(expect.arrayContaining(["+447700900112", "+14155550100"]));
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    });
  });
}
