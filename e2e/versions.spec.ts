/**
 * Versions in the browser: an edit changes only the draft, and the list, the details and the form
 * say so ("Draft — callers hear v1", Save draft, Publish beside Edit); the History tab publishes
 * it with a note, compares two versions, rolls back after saying what happens to the draft, and
 * names the numbers each version answers on — a number pinned from its Edit dialog included.
 */
import { ANALYSIS_SUMMARY_TEXTS } from "../src/shared/analysis.ts";
import { phoneNumbers } from "../src/server/db/schema.ts";
import { VERSION_MESSAGES } from "../src/shared/versions.ts";
import { expect, expectToast, test } from "./fixtures.ts";
import { userIdOf } from "./test-call.helpers.ts";

const OURS = "+14155550166";

for (const width of [1280, 390]) {
  test(`at ${width} px: the draft is shown where the user is; publish, compare, roll back with a confirmation, pin a number`, async ({ page, server, user }) => {
    test.slow();
    await page.setViewportSize({ width, height: 900 });
    const res = await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front Desk", instructions: "Be kind." } });
    expect(res.ok()).toBe(true);
    const assistantId = ((await res.json()) as { id: string }).id;
    await server.db.insert(phoneNumbers).values({ organizationId: await userIdOf(server, user.email), phoneNumber: OURS, countryCode: "US", status: "active", assistantId, providerSid: `PN${"5".repeat(32)}` });
    await page.goto("/assistants");
    const row = page.getByTestId("assistant-row").filter({ hasText: "Front Desk" });
    await expect(row.getByTestId("draft-badge")).toHaveCount(0);
    await row.getByRole("cell").first().click();
    const panel = page.getByRole("dialog", { name: "Front Desk" });
    await panel.getByRole("button", { name: "Edit" }).click();
    const form = page.getByRole("dialog", { name: "Edit Assistant" });
    await form.getByLabel("Instructions").fill("Be brief.");
    await form.getByRole("button", { name: VERSION_MESSAGES.saveDraft }).click();
    await expectToast(page, VERSION_MESSAGES.draftSaved(1));
    // The draft also extracts an order number (compared below as readable lines, not JSON).
    const analysis = { fields: [{ name: "order_id", type: "string", description: "The order number", required: true }], success: { scale: "score" } };
    expect((await page.request.patch(`${server.url}/api/assistants/${assistantId}`, { data: { analysis } })).ok()).toBe(true);

    // The draft's state where the user is: the details, the list, the form.
    await expect(panel.getByTestId("draft-badge")).toHaveText(VERSION_MESSAGES.draftBadge(1));
    await expect(row.getByTestId("draft-badge")).toHaveText(VERSION_MESSAGES.draftBadge(1));
    await panel.getByRole("button", { name: "Edit" }).click();
    await expect(form.getByTestId("draft-badge")).toHaveText(VERSION_MESSAGES.draftBadge(1));
    await expect(form.getByRole("button", { name: VERSION_MESSAGES.saveDraft })).toBeVisible();
    await form.getByRole("button", { name: "Cancel" }).click();

    // Publish beside Edit leads to the History tab's Publish.
    await panel.getByRole("button", { name: VERSION_MESSAGES.publish, exact: true }).click();
    const versions = panel.getByRole("list", { name: "Versions" });
    await expect(versions.locator('[data-version="1"]')).toContainText(VERSION_MESSAGES.runsOn(OURS));
    await expect(panel.getByText("The draft has changes that callers do not hear yet.")).toBeVisible();
    await panel.getByLabel("Note (optional)").fill("Shorter answers");
    await panel.getByRole("button", { name: "Publish", exact: true }).click();
    await expectToast(page, "Published as v2");
    await expect(versions.locator('[data-version="2"]')).toContainText(VERSION_MESSAGES.latest);
    await expect(versions.locator('[data-version="2"]')).toContainText("Shorter answers");
    await expect(versions.locator('[data-version="2"]')).toContainText(VERSION_MESSAGES.runsOn(OURS));
    await expect(row.getByTestId("draft-badge")).toHaveCount(0);

    await versions.locator('[data-version="1"]').getByRole("button", { name: "Compare with v2" }).click();
    const compare = panel.getByRole("region", { name: "Compare versions" });
    const instructions = compare.locator('[data-field="Instructions"]');
    await expect(instructions).toHaveAttribute("data-changed", "true");
    await expect(instructions).toContainText("Be kind.");
    await expect(instructions).toContainText("Be brief.");
    await expect(compare.locator('[data-field="Voice"]')).toHaveAttribute("data-changed", "false");
    const analysed = compare.locator('[data-field="Analysis"]');
    await expect(analysed).toHaveAttribute("data-changed", "true");
    await expect(analysed.locator("dd > div").first()).toHaveText([ANALYSIS_SUMMARY_TEXTS.summaryOn(null), ANALYSIS_SUMMARY_TEXTS.noFields, "Success: Pass / fail", "Model: gpt-5-mini"].join("\n"));
    await expect(analysed.locator("dd > div").nth(1)).toContainText("• order_id — Text, required: The order number");
    await expect(analysed.locator("dd > div").nth(1)).toContainText("Success: Score from 1 to 10");
    await expect(analysed).not.toContainText("{");

    // Roll back asks first, saying what happens to the draft; cancelling publishes nothing.
    await versions.locator('[data-version="1"]').getByRole("button", { name: "Roll back" }).click();
    const confirm = page.getByRole("alertdialog", { name: VERSION_MESSAGES.rollbackTitle(1) });
    await expect(confirm).toContainText(VERSION_MESSAGES.rollbackBody(1, 3));
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(versions.locator('[data-version="3"]')).toHaveCount(0);
    await versions.locator('[data-version="1"]').getByRole("button", { name: "Roll back" }).click();
    await confirm.getByRole("button", { name: VERSION_MESSAGES.rollbackConfirm }).click();
    await expectToast(page, "Rolled back: v3 is live with the content of v1");
    await expect(versions.locator('[data-version="3"]')).toContainText("Rolled back to the content of v1");
    await expect(versions.locator('[data-version="3"]')).toContainText(VERSION_MESSAGES.runsOn(OURS));
    // The draft kept "Be brief.", which callers no longer hear.
    await panel.getByRole("tab", { name: "Details" }).click();
    await expect(panel.getByTestId("draft-badge")).toHaveText(VERSION_MESSAGES.draftBadge(3));

    // Pin the number to v2 from its Edit dialog; History says so; unpin again.
    await page.keyboard.press("Escape");
    await page.goto("/phone-numbers");
    const pinTo = async (label: string) => {
      await page.getByRole("button", { name: `Actions for ${OURS}` }).click();
      await page.getByRole("menuitem", { name: "Edit" }).click();
      const dialog = page.getByRole("dialog", { name: "Edit Phone Number" });
      await dialog.getByRole("combobox", { name: VERSION_MESSAGES.pinLabel }).click();
      await page.getByRole("option", { name: label }).click();
      await dialog.getByRole("button", { name: "Save Changes" }).click();
      await expect(dialog).toBeHidden();
    };
    await pinTo(VERSION_MESSAGES.pinVersion(2, "Shorter answers"));
    expect((await (await page.request.get("/api/phone-numbers")).json()).data[0]).toMatchObject({ assistant_version: 2 });
    await page.goto("/assistants");
    await row.getByRole("cell").first().click();
    await panel.getByRole("tab", { name: "History" }).click();
    await expect(versions.locator('[data-version="2"]')).toContainText(VERSION_MESSAGES.runsOn(OURS));
    await expect(versions.locator('[data-version="3"]')).not.toContainText(VERSION_MESSAGES.runsOn(OURS));
    await page.goto("/phone-numbers");
    await pinTo(VERSION_MESSAGES.pinLatest(3));
    expect((await (await page.request.get("/api/phone-numbers")).json()).data[0]).toMatchObject({ assistant_version: null });
  });
}
