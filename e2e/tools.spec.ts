import type { Page } from "@playwright/test";
import { startToolUpstream, type ToolUpstream } from "../tests/fakes/tool-upstream.ts";
import { expect, expectToast, test } from "./fixtures.ts";

// The e2e server allow-lists 127.0.0.1, so tools may call this local upstream.
let upstream: ToolUpstream;
test.beforeAll(async () => {
  upstream = await startToolUpstream();
});
test.afterAll(() => upstream.close());

const API_KEY = "sk-e2e-0123456789-abcd";
const PARAMETERS = JSON.stringify({
  type: "object",
  properties: {
    order_id: { type: "string", description: "The order number" },
    quantity: { type: "integer", description: "How many items" },
  },
  required: ["order_id"],
});

const panel = (page: Page) => page.getByRole("dialog");

async function createToolViaApi(page: Page, overrides: Record<string, unknown>) {
  const res = await page.request.post("/api/tools", {
    data: { name: "API tool", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: `${upstream.origin}/echo`, ...overrides },
  });
  expect(res.status()).toBe(201);
  return (await res.json()) as { id: string; name: string };
}

test("create, inspect, edit, test and delete a tool", async ({ page, user: _user }) => {
  await page.goto("/tools");
  await expect(page.getByRole("heading", { name: "Tools", level: 1 })).toBeVisible();
  await expect(page.getByText("No tools yet")).toBeVisible();

  // Create Tool: two tabs; the connectors are a grid of six cards.
  await page.getByRole("button", { name: "Create new" }).click();
  await expect(panel(page).getByRole("heading", { name: "Create Tool" })).toBeVisible();
  await panel(page).getByRole("tab", { name: "Connectors" }).click();
  await expect(panel(page).getByText("Click on a connector to integrate with your tools")).toBeVisible();
  await expect(panel(page).getByRole("list", { name: "Connectors" }).getByRole("listitem")).toHaveCount(6);
  await panel(page).getByRole("tab", { name: "API" }).click();

  // Required fields.
  await panel(page).getByRole("button", { name: "Create Tool" }).click();
  await expectToast(page, "Missing required fields");
  await expect(panel(page).getByText("Name is required")).toBeVisible();
  await expect(panel(page).getByText("Must be a valid URL")).toBeVisible();

  await panel(page).getByLabel("Name").fill("Order Lookup");
  await panel(page).getByLabel("Description").fill("Finds an order by its number");
  await panel(page).getByLabel("Endpoint URL").fill(`${upstream.origin}/orders`);
  await panel(page).getByLabel("API Key").fill(API_KEY);
  await panel(page).getByLabel("Parameters (JSON Schema)").fill(PARAMETERS);

  // Invalid JSON is shown under its field and nothing is saved.
  await panel(page).getByLabel("Headers (JSON)").fill('{"X-Tenant": ');
  await panel(page).getByRole("button", { name: "Create Tool" }).click();
  await expect(panel(page).getByText("Headers must be valid JSON")).toBeVisible();
  expect((await (await page.request.get("/api/tools")).json()).data).toEqual([]);

  await panel(page).getByLabel("Headers (JSON)").fill('{"X-Tenant": "acme"}');
  await expect(panel(page).getByText("Headers must be valid JSON")).toHaveCount(0);
  await panel(page).getByRole("button", { name: "Create Tool" }).click();
  await expectToast(page, "Tool created successfully!");
  await expect(panel(page)).toHaveCount(0);

  // The table row.
  const row = page.getByTestId("tool-row").filter({ hasText: "Order Lookup" });
  await expect(row).toBeVisible();
  await expect(row.getByRole("cell").nth(1)).toHaveText("API");
  await expect(row.getByRole("cell").nth(2)).toHaveText("GET");
  await expect(row.getByTitle(`${upstream.origin}/orders`)).toHaveClass(/max-w-\[200px\]/);

  // Tool Details.
  await row.getByRole("button", { name: "Order Lookup", exact: true }).click();
  const details = panel(page);
  await expect(details.getByRole("heading", { name: "Order Lookup" })).toBeVisible();
  await expect(details.getByText("Finds an order by its number")).toBeVisible();
  await expect(details.getByText("Standard")).toBeVisible();
  await expect(details.getByText(`${upstream.origin}/orders`)).toBeVisible();
  // Header values are secrets: names shown, values masked.
  await expect(details.getByText('"X-Tenant": "••••"')).toBeVisible();
  await expect(details.getByText("acme")).toHaveCount(0);
  await expect(details.getByText("••••abcd")).toBeVisible();
  await expect(details.getByText(API_KEY)).toHaveCount(0);
  await expect(details.locator("[data-field=Created]")).toContainText(/\w+ \d{1,2}, \d{4} at \d{1,2}:\d{2} [AP]M/);

  // Edit Tool: the form comes prefilled; the key stays when left blank.
  await details.getByRole("button", { name: "Edit" }).click();
  await expect(panel(page).getByRole("heading", { name: "Edit Tool" })).toBeVisible();
  await expect(panel(page).getByLabel("Name")).toHaveValue("Order Lookup");
  await expect(panel(page).getByLabel("Endpoint URL")).toHaveValue(`${upstream.origin}/orders`);
  await expect(panel(page).getByLabel("API Key")).toHaveValue("");
  // The masked header comes back as it was shown, so the stored value is kept (the test below sends it).
  await expect(panel(page).getByLabel("Headers (JSON)")).toHaveValue(/"X-Tenant": "••••"/);
  await panel(page).getByLabel("Name").fill("Order Status Lookup");
  await panel(page).getByRole("button", { name: "Save Changes" }).click();
  await expectToast(page, "Tool updated successfully!");
  await expect(panel(page).getByRole("heading", { name: "Order Status Lookup" })).toBeVisible();
  await expect(page.getByTestId("tool-row").filter({ hasText: "Order Status Lookup" })).toBeVisible();

  // Test panel: one input per parameter; the upstream's answer is shown.
  await panel(page).getByRole("button", { name: "Test", exact: true }).click();
  const testPanel = panel(page);
  await expect(testPanel.getByRole("heading", { name: "Test Tool: Order Status Lookup" })).toBeVisible();
  await expect(testPanel.getByTestId("test-request-url")).toHaveText(`${upstream.origin}/orders`);
  await expect(testPanel.getByText("The order number")).toBeVisible();
  await testPanel.getByRole("textbox", { name: /quantity/ }).fill("two");
  await testPanel.getByRole("button", { name: "Launch Test" }).click();
  await expect(testPanel.getByText("Must be a whole number")).toBeVisible();
  await expect(testPanel.getByText("order_id is required")).toBeVisible();

  await testPanel.getByRole("textbox", { name: /order_id/ }).fill("A-1001");
  await testPanel.getByRole("textbox", { name: /quantity/ }).fill("2");
  const seenBefore = upstream.requests.length;
  await testPanel.getByRole("button", { name: "Launch Test" }).click();
  await expectToast(page, "Tool test executed successfully");
  const result = testPanel.getByTestId("test-result");
  await expect(result).toContainText("200 OK");
  await expect(result).toContainText(`${upstream.origin}/orders?order_id=A-1001&quantity=2`);
  await expect(result).toContainText('"order_id": "A-1001"');
  const seen = upstream.requests.slice(seenBefore);
  expect(seen).toHaveLength(1);
  expect(seen[0]).toMatchObject({ method: "GET", path: "/orders", query: { order_id: "A-1001", quantity: "2" } });
  expect(seen[0]!.headers).toMatchObject({ authorization: `Bearer ${API_KEY}`, "x-tenant": "acme" });
  await page.keyboard.press("Escape");
  await expect(panel(page)).toHaveCount(0);

  // Delete, after confirming.
  await page.getByRole("button", { name: "Delete Order Status Lookup" }).click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm.getByRole("heading", { name: "Delete this tool?" })).toBeVisible();
  await confirm.getByRole("button", { name: "Cancel" }).click();
  await expect(page.getByTestId("tool-row")).toHaveCount(1);
  await page.getByRole("button", { name: "Delete Order Status Lookup" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expectToast(page, "Tool deleted successfully!");
  await expect(page.getByText("No tools yet")).toBeVisible();
  expect((await (await page.request.get("/api/tools")).json()).data).toEqual([]);
});

test("the test panel shows an upstream error status, a refused host and the method's help", async ({ page, user: _user }) => {
  await createToolViaApi(page, { name: "Missing order", end_point_url: `${upstream.origin}/status/404` });
  await createToolViaApi(page, { name: "Private host", end_point_url: "http://10.0.0.1/internal" });
  await createToolViaApi(page, { name: "Filtered query", parameter_format: "database-query" });
  await createToolViaApi(page, { name: "Create order", http_method: "POST", request_body: { source: "e2e" } });
  await page.goto("/tools");

  await page.getByRole("button", { name: "Test Missing order" }).click();
  await panel(page).getByRole("button", { name: "Launch Test" }).click();
  await expectToast(page, "Tool test completed with status 404");
  await expect(panel(page).getByTestId("test-result")).toContainText("404 Not Found");
  await expect(panel(page).getByTestId("test-result")).toContainText('"message": "No such order"');
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Test Private host" }).click();
  await panel(page).getByRole("button", { name: "Launch Test" }).click();
  await expectToast(page, "Failed to execute tool test");
  const alert = panel(page).getByRole("alert");
  await expect(alert).toContainText("An error occurred during tool execution");
  await expect(alert).toContainText("Refused to connect to 10.0.0.1: it is a private network address.");
  await expect(panel(page).getByTestId("test-result")).toHaveCount(0);
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Test Filtered query" }).click();
  for (const prefix of ["eq.", "gt.", "lt.", "gte.", "lte.", "neq.", "like."]) {
    await expect(panel(page).getByText(prefix, { exact: true }).first()).toBeVisible();
  }
  await expect(panel(page).getByText(/eq\. is the default/).first()).toBeVisible();
  await page.keyboard.press("Escape");

  await page.getByRole("button", { name: "Test Create order" }).click();
  await expect(panel(page).getByText(/Parameters are sent as a JSON body/)).toBeVisible();
  await panel(page).getByRole("button", { name: "Launch Test" }).click();
  await expectToast(page, "Tool test executed successfully");
  await expect(panel(page).getByTestId("test-result")).toContainText('"source": "e2e"');
});
