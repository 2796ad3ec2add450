import type { Page } from "@playwright/test";
import { KNOWLEDGE_TEXTS } from "../src/shared/knowledge.ts";
import { FakeEmbeddings } from "../tests/fakes/fake-embeddings.ts";
import { makePdf } from "../tests/knowledge-files.ts";
import { expect, expectToast, test } from "./fixtures.ts";

/**
 * The Knowledge page as a team uses it in its first hour: a base, its FAQ pasted and its policy PDF
 * uploaded, each processed on the job queue until ready, the search box finding the right passage
 * with its source — by words before an OpenAI key is saved, by meaning after — and a file that
 * cannot be read failing with its reason.
 */
const documents = (page: Page) => page.getByRole("list", { name: "Documents" });
const documentRow = (page: Page, name: string) => documents(page).getByRole("listitem").filter({ hasText: name });
const passages = (page: Page) => page.getByRole("list", { name: "Passages" }).getByRole("listitem");

test("a team adds its FAQ and policy PDF, asks the search box a question and sees the right passage with its source", async ({ page, server, user: _user }) => {
  const policy = await makePdf([
    ["Returns policy", "This policy covers purchases made in our stores and online."],
    ["Returning an item", "You may return an item within 30 days of delivery for a full refund.", "Bring the receipt or the order number."],
  ]);

  await page.goto("/knowledge");
  await expect(page.getByRole("heading", { name: "Knowledge", level: 1 })).toBeVisible();
  // No OpenAI key yet: the page says search goes by words.
  await expect(page.getByText(KNOWLEDGE_TEXTS.fullTextOnly)).toBeVisible();
  await expect(page.getByText("No knowledge bases yet.")).toBeVisible();

  await page.getByLabel("New knowledge base name").fill("Customer help");
  await page.getByRole("button", { name: "Create knowledge base" }).click();
  await expect(page.getByRole("heading", { name: "Customer help", level: 2 })).toBeVisible();
  await expect(page.getByText("No documents yet.")).toBeVisible();

  await page.getByRole("tab", { name: "Paste text" }).click();
  await page.getByLabel("Document name").fill("Opening hours FAQ");
  await page.getByLabel("Document text").fill("# Opening hours\nWe are open Monday to Saturday from 9 am to 6 pm. On Sundays the shop is closed.");
  await page.getByRole("button", { name: "Add text" }).click();
  await expectToast(page, "Document added: it is being processed");
  await expect(documentRow(page, "Opening hours FAQ")).toContainText("Ready · 1 passage · words only", { timeout: 20_000 });

  await page.getByRole("tab", { name: "Upload" }).click();
  await page.getByLabel("Document file").setInputFiles({ name: "returns-policy.pdf", mimeType: "application/pdf", buffer: policy });
  await expect(documentRow(page, "returns-policy.pdf")).toContainText("Ready · 2 passages · 2 pages · words only", { timeout: 20_000 });
  await expect(page.getByRole("navigation", { name: "Knowledge bases" })).toContainText("2 documents · 3 passages");

  // By words: the passage that has them, named by its document and page.
  await page.getByLabel("Question").fill("return an item refund");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(passages(page).first()).toContainText("returns-policy.pdf — page 2");
  await expect(passages(page).first()).toContainText("within 30 days of delivery");
  await expect(page.getByRole("list", { name: "Passages" })).toContainText("Found by words only.");

  // With the organisation's key and the embeddings API, re-processed documents are searched by meaning too.
  await FakeEmbeddings.start({ apiKey: server.openai.apiKey, serveOn: server.openai });
  expect((await page.request.put(`${server.url}/api/credentials/openai_api_key`, { data: { value: server.openai.apiKey } })).ok()).toBe(true);
  await page.reload();
  await expect(page.getByRole("heading", { name: "Customer help", level: 2 })).toBeVisible();
  await expect(page.getByText(KNOWLEDGE_TEXTS.fullTextOnly)).toHaveCount(0);
  for (const name of ["Opening hours FAQ", "returns-policy.pdf"]) {
    await page.getByRole("button", { name: `Re-process ${name}` }).click();
    await expectToast(page, "Document queued again");
  }
  await expect(documentRow(page, "Opening hours FAQ")).toContainText(/Ready · 1 passage$/, { timeout: 20_000 });
  await expect(documentRow(page, "returns-policy.pdf")).toContainText(/Ready · 2 passages · 2 pages$/, { timeout: 20_000 });
  await page.getByLabel("Question").fill("When is the shop open on Saturday?");
  await page.getByRole("button", { name: "Search" }).click();
  await expect(passages(page).first()).toContainText("Opening hours FAQ — Opening hours");
  await expect(passages(page).first()).toContainText("Monday to Saturday from 9 am to 6 pm");
  await expect(page.getByRole("list", { name: "Passages" })).not.toContainText("Found by words only.");

  // A file that is not what it says fails, with its reason in plain words; deleting it removes it.
  await page.getByLabel("Document file").setInputFiles({ name: "price-list.pdf", mimeType: "application/pdf", buffer: Buffer.from("this is not a PDF") });
  await expect(documentRow(page, "price-list.pdf")).toContainText("Failed", { timeout: 20_000 });
  await expect(documentRow(page, "price-list.pdf")).toContainText(KNOWLEDGE_TEXTS.failedUnreadable("PDF"));
  await page.getByRole("button", { name: "Delete price-list.pdf" }).click();
  await expectToast(page, "Document deleted");
  await expect(documentRow(page, "price-list.pdf")).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Knowledge bases" })).toContainText("2 documents · 3 passages");
});
