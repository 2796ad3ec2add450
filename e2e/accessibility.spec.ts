/**
 * axe (WCAG 2.1 A/AA and best practice) over every page, signed out and signed in, and over the
 * panels and dialogs the app opens: no serious or critical violation anywhere.
 */
import { axeViolations, isSerious, settle, SIGNED_IN_PAGES, SIGNED_OUT_PAGES, type AxeFinding } from "../tests/a11y-pages.ts";
import type { Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";

/** Escape, then wait until the dialog has gone: a click while it animates out is swallowed. */
async function closeDialog(page: Page) {
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
}

const report = (where: string, findings: AxeFinding[]) => findings.filter(isSerious).map((f) => `${where}: ${f.id} (${f.impact}) ${f.help} → ${f.targets.slice(0, 3).join(", ")}`);

test("signed out: every marketing and auth page", async ({ page }) => {
  test.setTimeout(300_000);
  const problems: string[] = [];
  for (const path of SIGNED_OUT_PAGES) {
    await page.goto(path);
    await settle(page);
    problems.push(...report(path, await axeViolations(page)));
  }
  expect(problems).toEqual([]);
});

test("signed in: every app page, its panels and dialogs", async ({ page, server, user: _user }) => {
  test.setTimeout(300_000);
  const tool = await page.request.post(`${server.url}/api/tools`, { data: { name: "Order Lookup", type: "API", http_method: "GET", parameter_format: "standard", end_point_url: "https://example.com/orders" } });
  const { id: toolId } = (await tool.json()) as { id: string };
  expect((await page.request.post(`${server.url}/api/assistants`, { data: { name: "Front Desk", tool_ids: [toolId] } })).ok()).toBe(true);
  const problems: string[] = [];
  const check = async (where: string) => problems.push(...report(where, await axeViolations(page)));

  for (const path of SIGNED_IN_PAGES) {
    await page.goto(path);
    await settle(page);
    await check(path);
  }

  await page.goto("/assistants");
  await page.getByRole("button", { name: "Create new" }).click();
  await page.getByRole("dialog").getByLabel("Name").waitFor();
  await check("/assistants Create Assistant");
  await closeDialog(page);
  await page.getByTestId("assistant-row").first().click();
  await page.getByRole("dialog").getByRole("button", { name: "Edit" }).waitFor();
  await check("/assistants details");
  await closeDialog(page);
  await page.getByTestId("assistant-row").first().getByRole("button", { name: "Test call" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Start Call" }).waitFor();
  await check("/assistants Test Call");
  await closeDialog(page);

  await page.goto("/tools");
  await page.getByRole("button", { name: "Create new" }).click();
  await page.getByRole("dialog").getByLabel("Name").waitFor();
  await check("/tools Create Tool");
  await page.getByRole("dialog").getByRole("tab", { name: "Connectors" }).click();
  await check("/tools Connectors");
  await closeDialog(page);
  await page.getByTestId("tool-row").first().getByRole("button", { name: /^Test / }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Launch Test" }).waitFor();
  await check("/tools Test Tool");
  await closeDialog(page);

  await page.goto("/settings");
  await settle(page);
  await page.getByRole("button", { name: "Delete My Account" }).click();
  await page.getByRole("alertdialog").getByRole("list").waitFor();
  await check("/settings Delete account");
  expect(problems).toEqual([]);
});
