/**
 * Tests of an assistant in the browser: a scenario made on the Tests tab, Run tests against the
 * draft (the fake Responses API plays the caller and the judge), its result with reasons and the
 * conversation; then Publish, which tests the draft first and asks to confirm a failure.
 */
import { startFakeResponses } from "../tests/fakes/fake-responses.ts";
import { testRoles } from "../tests/fakes/fake-test-roles.ts";
import { expect, expectToast, test } from "./fixtures.ts";

test("create a scenario, run it, read the verdict; publish with a failing test after confirming", async ({ page, server, user: _user }) => {
  const before = server.openai.rest;
  const responses = await startFakeResponses({ apiKey: server.openai.apiKey, serveOn: server.openai });
  try {
    responses.script = testRoles({
      caller: (req) => (req.callerTurn === 0 ? { say: "Where is my order 42?", done: false } : { say: "Thanks, bye.", done: true }),
      assistant: () => ({ reply: "Order 42 has shipped." }),
      judge: () => ({ passed: true, reasons: ["The caller was told the order shipped"] }),
    });
    expect((await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: server.openai.apiKey } })).ok()).toBe(true);
    const created = await page.request.post(`${server.url}/api/assistants`, { data: { name: "Order Desk", instructions: "Help with orders.", first_message: "Hello!" } });
    expect(created.ok()).toBe(true);
    const assistantId = ((await created.json()) as { id: string }).id;

    await page.goto("/assistants");
    await page.getByTestId("assistant-row").filter({ hasText: "Order Desk" }).getByRole("cell").first().click();
    const panel = page.getByRole("dialog", { name: "Order Desk" });
    await panel.getByRole("tab", { name: "Tests" }).click();
    await expect(panel.getByText("No scenarios yet.")).toBeVisible();

    await panel.getByRole("button", { name: "New scenario" }).click();
    const form = panel.getByRole("form", { name: "New scenario" });
    await form.getByRole("button", { name: "Save scenario" }).click();
    await expect(form.getByText("Name is required")).toBeVisible();
    await form.getByLabel("Name").fill("Late order");
    await form.getByLabel("Persona").fill("You are Ada, your order 42 has not arrived.");
    await form.getByLabel("Goal").fill("Learn where order 42 is");
    await form.getByLabel("Success criteria").fill("The assistant says the order has shipped.");
    await form.getByLabel("Maximum turns").fill("4");
    await form.getByRole("button", { name: "Save scenario" }).click();
    await expectToast(page, "Scenario saved");
    const scenarios = panel.getByRole("region", { name: "Scenarios" });
    await expect(scenarios.locator('[data-scenario="Late order"]')).toContainText("up to 4 turns");

    await panel.getByRole("button", { name: "Run tests" }).click();
    const results = panel.getByRole("region", { name: "Test results" });
    await expect(results.getByRole("status")).toContainText("1 of 1 passed");
    const result = results.locator('[data-result="passed"]');
    await expect(result).toContainText("Late order");
    await expect(result).toContainText("Passed");
    await expect(result).toContainText("The caller was told the order shipped");
    await result.getByText("Conversation").click();
    await expect(result).toContainText("Caller: Where is my order 42?");
    await expect(result).toContainText("Assistant: Order 42 has shipped.");

    // A changed draft that fails its test: Publish tests it first, then asks.
    responses.script = testRoles({ judge: () => ({ passed: false, reasons: ["The status was not given"] }) });
    expect((await page.request.patch(`${server.url}/api/assistants/${assistantId}`, { data: { instructions: "Never look orders up." } })).ok()).toBe(true);
    await panel.getByRole("tab", { name: "History" }).click();
    await panel.getByRole("button", { name: "Publish" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Publish with failing tests?" });
    await expect(confirm).toContainText("1 of 1 test scenarios failed against the draft. Publish anyway?");
    await confirm.getByRole("button", { name: "Publish anyway" }).click();
    await expectToast(page, "Published as v2");
    await expect(panel.getByRole("list", { name: "Versions" }).locator('[data-version="2"]')).toContainText("Published with failing tests");
  } finally {
    server.openai.rest = before;
    await responses.close();
  }
});
