import { API_KEY_MESSAGES, API_KEY_SCOPE, type ApiKey } from "../src/shared/api-keys.ts";
import { eq } from "drizzle-orm";
import { webhookEndpoints } from "../src/server/db/schema.ts";
import { WEBHOOK_DISABLE_AFTER_MS, WEBHOOK_MESSAGES } from "../src/shared/webhooks.ts";
import { startWebhookReceiver } from "../tests/fakes/webhook-receiver.ts";
import { expect, expectToast, test } from "./fixtures.ts";

test("API keys: create, copy the key shown once, use it, revoke it", async ({ page, context, server, user: _user }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
  await page.goto("/settings");
  const card = page.getByTestId("api-keys-card");
  await expect(card.getByText("API Keys", { exact: true })).toBeVisible({ timeout: 30_000 });
  await expect(card.getByRole("link", { name: "API reference" })).toHaveAttribute("href", "/docs/api");
  await expect(card.getByText(API_KEY_SCOPE)).toBeVisible();

  await card.getByRole("button", { name: "Create API key" }).click();
  await expect(card.getByRole("alert")).toBeVisible();
  await card.getByLabel("Key name").fill("CRM");
  await card.getByRole("button", { name: "Create API key" }).click();
  await expectToast(page, API_KEY_MESSAGES.created);

  const dialog = page.getByRole("dialog", { name: "Your new API key" });
  await expect(dialog.getByText(API_KEY_MESSAGES.copyOnce)).toBeVisible();
  const key = (await dialog.getByTestId("secret-value").textContent())!.trim();
  expect(key).toMatch(/^sk_[A-Za-z0-9]{32,}$/);
  await dialog.getByRole("button", { name: "Copy" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();

  // Listed by name and prefix; the secret itself is never shown again.
  const row = card.getByRole("row").filter({ hasText: "CRM" });
  await expect(row).toContainText(key.slice(0, 8));
  await expect(row).toContainText("Never");
  await page.reload();
  await expect(page.locator("body")).not.toContainText(key);

  const asKey = () => page.request.get("/api/assistants", { headers: { authorization: `Bearer ${key}` } });
  expect((await asKey()).status()).toBe(200);

  // What the key does is in the audit log under the person it acts for, with the key's id.
  const made = await page.request.post("/api/assistants", { headers: { authorization: `Bearer ${key}` }, data: { name: "Made by key" } });
  expect(made.status()).toBe(201);
  const keyId = ((await (await page.request.get("/api/api-keys")).json()) as { data: ApiKey[] }).data.find((k) => k.name === "CRM")!.id;
  await page.reload();
  const entry = page.getByTestId("audit-log-card").getByRole("row").filter({ hasText: "Made by key" });
  await expect(entry).toContainText("(API key “CRM”)", { timeout: 30_000 });
  await expect(entry).toContainText(`key ${keyId}`);

  await card.getByRole("row").filter({ hasText: "CRM" }).getByRole("button", { name: "Revoke" }).click();
  const confirm = page.getByRole("alertdialog", { name: "Revoke API key?" });
  await expect(confirm).toContainText("CRM");
  await confirm.getByRole("button", { name: "Revoke" }).click();
  await expectToast(page, API_KEY_MESSAGES.revoked);
  await expect(card.getByRole("row").filter({ hasText: "CRM" })).toHaveCount(0);
  expect((await asKey()).status()).toBe(401);
});

test("Webhooks: add an endpoint, keep its secret from the one dialog, rotate it, send a test event and see it delivered", async ({ page, user: _user }) => {
  const receiver = await startWebhookReceiver();
  try {
    await page.goto("/settings");
    const card = page.getByTestId("webhooks-card");
    await expect(card.getByText("Webhooks", { exact: true })).toBeVisible({ timeout: 30_000 });
    await expect(card.getByText("No endpoints yet.")).toBeVisible();

    await card.getByLabel("Endpoint URL").fill("http://hooks.example.com/in");
    await card.getByRole("button", { name: "Add endpoint" }).click();
    await expect(card.getByRole("alert")).toContainText(WEBHOOK_MESSAGES.httpsRequired);

    await card.getByLabel("Endpoint URL").fill(receiver.url);
    await card.getByLabel("Description").fill("Local receiver");
    await card.getByRole("button", { name: "Add endpoint" }).click();
    await expectToast(page, WEBHOOK_MESSAGES.created);
    const dialog = page.getByRole("dialog", { name: "Signing secret" });
    const secret = (await dialog.getByTestId("secret-value").textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await dialog.getByRole("button", { name: "Done" }).click();
    await expect(dialog).toBeHidden();

    const endpoint = card.getByTestId("webhook-endpoint").filter({ hasText: receiver.url });
    await expect(endpoint).toContainText("Local receiver");
    await expect(endpoint).toContainText("call.ended");
    // Shown once: nothing offers it again.
    await expect(endpoint.getByRole("button", { name: "Reveal secret" })).toHaveCount(0);
    await expect(card).not.toContainText(secret);
    // Rotating shows the new one, once; the old one still signs for a day, the new one verifies.
    await endpoint.getByRole("button", { name: "Rotate secret" }).click();
    await expectToast(page, WEBHOOK_MESSAGES.rotated);
    await expect(dialog).toContainText(WEBHOOK_MESSAGES.secretShownOnce);
    const rotated = (await dialog.getByTestId("secret-value").textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await dialog.getByRole("button", { name: "Done" }).click();
    receiver.secret = rotated;

    await endpoint.getByRole("button", { name: "Send test event" }).click();
    await expectToast(page, WEBHOOK_MESSAGES.testSent);
    const delivery = endpoint.getByRole("table", { name: "Recent deliveries" }).getByRole("row").filter({ hasText: "webhook.test" });
    await expect(delivery).toContainText("delivered", { timeout: 20_000 });
    await expect(delivery).toContainText("200");
    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]).toMatchObject({ type: "webhook.test", verified: true, status: 200 });
  } finally {
    await receiver.close();
  }
});

test("Webhooks: an endpoint failing for 3 days is turned off and the page says so", async ({ page, server, user: _user }) => {
  const dead = await startWebhookReceiver({ failFirst: 1000 });
  try {
    await page.goto("/settings");
    const card = page.getByTestId("webhooks-card");
    await card.getByLabel("Endpoint URL").fill(dead.url);
    await card.getByRole("button", { name: "Add endpoint" }).click();
    const dialog = page.getByRole("dialog", { name: "Signing secret" });
    dead.secret = (await dialog.getByTestId("secret-value").textContent())!.trim();
    await dialog.getByRole("button", { name: "Done" }).click();
    const endpoint = card.getByTestId("webhook-endpoint").filter({ hasText: dead.url });
    await expect(endpoint.getByRole("checkbox")).toBeChecked();

    // It has been failing since 3 days ago: the next failed attempt turns it off.
    await server.db.update(webhookEndpoints).set({ failingSince: new Date(Date.now() - WEBHOOK_DISABLE_AFTER_MS - 60_000) }).where(eq(webhookEndpoints.url, dead.url));
    await endpoint.getByRole("button", { name: "Send test event" }).click();
    await expectToast(page, WEBHOOK_MESSAGES.testSent);
    await expect(endpoint.getByRole("status")).toHaveText(WEBHOOK_MESSAGES.disabledForFailures, { timeout: 20_000 });
    await expect(endpoint.getByRole("checkbox")).not.toBeChecked();
    expect(dead.requests).toHaveLength(1);
    // The delivery says why it failed: the endpoint's status and what it answered.
    const delivery = endpoint.getByRole("table", { name: "Recent deliveries" }).getByRole("row").filter({ hasText: "webhook.test" });
    await expect(delivery).toContainText("HTTP 500: no");
  } finally {
    await dead.close();
  }
});
