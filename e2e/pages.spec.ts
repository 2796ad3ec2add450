/**
 * What users expect on the list pages: search and sort, unsaved changes guarded, the connector
 * cards, the tool types on offer, and the panel widths of spec §9 at each breakpoint.
 */
import type { Page } from "@playwright/test";
import { expect, test, type TestServer } from "./fixtures.ts";

const sidePanel = (page: Page) => page.getByRole("dialog").first();

async function seed(page: Page, server: TestServer) {
  for (const [name, method] of [["Refund Policy", "GET"], ["address lookup", "POST"], ["Booking 10", "DELETE"], ["Booking 2", "PUT"]] as const) {
    const res = await page.request.post(`${server.url}/api/tools`, { data: { name, type: "API", http_method: method, parameter_format: "standard", end_point_url: "https://example.com/x" } });
    expect(res.ok()).toBe(true);
  }
  for (const name of ["Front Desk", "billing line", "After Hours"]) {
    expect((await page.request.post(`${server.url}/api/assistants`, { data: { name } })).ok()).toBe(true);
  }
}

const names = (page: Page, testId: string) => page.getByTestId(testId).locator("td:first-child").allInnerTexts();

test("Assistants and Tools: search by name and sortable columns", async ({ page, server, user: _user }) => {
  await seed(page, server);
  await page.goto("/tools");
  await expect(page.getByTestId("tool-row")).toHaveCount(4);
  // Newest first until a column is chosen.
  expect(await page.getByTestId("tool-row").locator("td:first-child").allInnerTexts()).toEqual(["Booking 2", "Booking 10", "address lookup", "Refund Policy"]);
  const nameHeader = page.getByRole("columnheader", { name: /Name/ });
  await nameHeader.getByRole("button").click();
  await expect(nameHeader).toHaveAttribute("aria-sort", "ascending");
  expect(await page.getByTestId("tool-row").locator("td:first-child").allInnerTexts()).toEqual(["address lookup", "Booking 2", "Booking 10", "Refund Policy"]);
  await nameHeader.getByRole("button").click();
  await expect(nameHeader).toHaveAttribute("aria-sort", "descending");
  expect(await page.getByTestId("tool-row").locator("td:first-child").allInnerTexts()).toEqual(["Refund Policy", "Booking 10", "Booking 2", "address lookup"]);
  await page.getByRole("columnheader", { name: /Method/ }).getByRole("button").click();
  expect(await page.getByTestId("tool-row").locator("td:first-child").allInnerTexts()).toEqual(["Booking 10", "Refund Policy", "address lookup", "Booking 2"]);

  await page.getByRole("searchbox", { name: "Search tools by name" }).fill("BOOK");
  expect(await page.getByTestId("tool-row").locator("td:first-child").allInnerTexts()).toEqual(["Booking 10", "Booking 2"]);
  await page.getByRole("searchbox", { name: "Search tools by name" }).fill("nothing like it");
  await expect(page.getByTestId("tool-row")).toHaveCount(0);
  await expect(page.getByText("No tools match “nothing like it”.")).toBeVisible();

  await page.goto("/assistants");
  await expect(page.getByTestId("assistant-row")).toHaveCount(3);
  await page.getByRole("columnheader", { name: /Name/ }).getByRole("button").click();
  expect(await names(page, "assistant-row")).toEqual(["After Hours", "billing line", "Front Desk"]);
  await page.getByRole("searchbox", { name: "Search assistants by name" }).fill("desk");
  expect(await names(page, "assistant-row")).toEqual(["Front Desk"]);
});

test("closing a Create or Edit panel with unsaved changes asks first", async ({ page, server, user: _user }) => {
  await seed(page, server);
  await page.goto("/assistants");
  // Nothing typed: closes at once.
  await page.getByRole("button", { name: "Create new" }).click();
  await expect(sidePanel(page).getByRole("heading", { name: "Create Assistant" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);

  await page.getByRole("button", { name: "Create new" }).click();
  await sidePanel(page).getByLabel("Name").fill("Half-made assistant");
  await page.keyboard.press("Escape");
  const confirm = page.getByRole("alertdialog", { name: "Discard unsaved changes?" });
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Keep Editing" }).click();
  await expect(page.getByRole("dialog").getByLabel("Name")).toHaveValue("Half-made assistant");
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await confirm.getByRole("button", { name: "Discard Changes" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);

  // Edit: Cancel with a change asks; discarding returns to the details unchanged.
  await page.getByTestId("assistant-row").filter({ hasText: "Front Desk" }).getByRole("button", { name: "Edit assistant" }).click();
  await page.getByRole("dialog").getByLabel("Name").fill("Front Desk (renamed)");
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  await confirm.getByRole("button", { name: "Discard Changes" }).click();
  await expect(page.getByRole("dialog").getByRole("heading", { name: "Front Desk", exact: true })).toBeVisible();

  await page.goto("/tools");
  await page.getByTestId("tool-row").filter({ hasText: "Refund Policy" }).getByRole("button", { name: "Edit Refund Policy" }).click();
  await page.getByRole("dialog").getByLabel("Description").fill("Changed");
  await page.keyboard.press("Escape");
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: "Discard Changes" }).click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  expect(((await (await page.request.get(`${server.url}/api/tools`)).json()).data as Array<{ description: string | null }>).every((t) => t.description !== "Changed")).toBe(true);
});

test("Create Tool: types API and Connector only; connector cards say Coming soon, look inert and take keyboard focus", async ({ page, user: _user }) => {
  await page.goto("/tools");
  await page.getByRole("button", { name: "Create new" }).click();
  await page.getByRole("dialog").getByRole("combobox", { name: "Type" }).click();
  await expect(page.getByRole("option")).toHaveText(["API", "Connector"]);
  await page.keyboard.press("Escape");

  await page.getByRole("dialog").getByRole("tab", { name: "Connectors" }).click();
  const cards = page.getByRole("list", { name: "Connectors" }).getByRole("button");
  await expect(cards).toHaveCount(6);
  for (const card of await cards.all()) {
    await expect(card).toContainText("Coming soon");
    await expect(card).toHaveAttribute("aria-disabled", "true");
    await expect(card).toHaveCSS("cursor", "default");
  }
  await cards.first().focus();
  await page.keyboard.press("Tab");
  await expect(cards.nth(1)).toBeFocused();
  await page.keyboard.press("Enter");
  // Playwright waits for aria-disabled controls to become enabled; a user can still click one.
  await cards.nth(1).click({ force: true });
  // Nothing happens: still the Connectors tab of Create Tool.
  await expect(page.getByRole("dialog").getByRole("tab", { name: "Connectors" })).toHaveAttribute("aria-selected", "true");
});

test("panel widths of spec §9 at each breakpoint", async ({ page, server, user: _user }) => {
  await seed(page, server);
  const widthOf = async () => (await page.locator("[data-slot=sheet-content]").boundingBox())!.width;
  // [viewport, tool panel 45%, assistant panel min(600px, 60% | 50% from lg), test call 60% | 45% from lg]; full width below 640 px.
  for (const [vw, tool, assistant, testCall] of [
    [500, 500, 500, 500],
    [800, 360, 480, 480],
    [1440, 648, 600, 648],
  ] as const) {
    await page.setViewportSize({ width: vw, height: 900 });
    await page.goto("/tools");
    await page.getByRole("button", { name: "Create new" }).click();
    expect(Math.round(await widthOf())).toBe(tool);
    await page.keyboard.press("Escape");
    await page.goto("/assistants");
    await page.getByRole("button", { name: "Create new" }).click();
    expect(Math.round(await widthOf())).toBe(assistant);
    await page.keyboard.press("Escape");
    await page.getByTestId("assistant-row").first().getByRole("button", { name: "Test call" }).click();
    expect(Math.round(await widthOf())).toBe(testCall);
    await page.keyboard.press("Escape");
  }
});

test("Resources in the top bar and Blog, Guides, Call Recordings and Press in the footer lead to their pages", async ({ page }) => {
  await page.goto("/");
  await page.getByTestId("marketing-header").getByRole("link", { name: "Resources" }).click();
  await expect(page).toHaveURL(/\/resources\/guides$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Guides for building voice assistants");
  for (const [label, path, heading] of [
    ["Blog", "/blog", "Notes from building Switchboard"],
    ["Guides", "/resources/guides", "Guides for building voice assistants"],
    ["Call Recordings", "/resources/call-recordings", "Hear exactly what your callers heard"],
    ["Press", "/company/press", "Switchboard in the press"],
  ] as const) {
    await page.goto("/");
    await page.getByTestId("marketing-footer").getByRole("link", { name: label, exact: true }).click();
    await expect(page).toHaveURL(new RegExp(`${path}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(heading);
    await expect(page).toHaveTitle(/Switchboard/);
  }
});
