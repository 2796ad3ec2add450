import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeEmbeddings } from "../../../../tests/fakes/fake-embeddings.ts";
import { as, buildTestApp, errorOf, signUpAndLogIn, type TestApp, expectBody } from "../../../../tests/harness.ts";
import { databaseHasPgvector, makeDocx, makePdf, multipart } from "../../../../tests/knowledge-files.ts";
import { joinAs } from "../../../../tests/team.ts";
import type { SignedUp } from "../../../../tests/sign-up.ts";
import { KNOWLEDGE_TEXTS, MAX_DOCUMENT_BYTES, type KnowledgeBase, type KnowledgeDocument, type KnowledgeSearchResult } from "../../../shared/knowledge.ts";

/**
 * Knowledge bases end to end over the API: real files (a PDF, a DOCX, an HTML page served on
 * loopback, pasted text), ingestion on the durable queue, embeddings from a stand-in that speaks
 * OpenAI's /v1/embeddings (its 429s and 5xx too), hybrid search on the real database, and the
 * bad inputs — each a clear 4xx or a failed document with its reason, nothing half-stored.
 */

let fake: FakeEmbeddings;
let app: TestApp;
let site: Server;
let siteUrl: string;
let ada: SignedUp;
let bob: SignedUp;
let viewer: SignedUp;
let baseId: string;
/** The database has pgvector: passages are embedded and searched by meaning too, else by words only. */
let vectors: boolean;

const POLICY_PAGES = [
  ["Acme Returns Policy", "This policy applies to every order placed online."],
  ["Returns", "You can return any item within 30 days of delivery for a full refund.", "Items must be unused and in their original packaging."],
];

beforeAll(async () => {
  fake = await FakeEmbeddings.start({ apiKey: "sk-kb-test" });
  site = createServer((req, res) => {
    if (req.url === "/hours.html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<html><body><nav>Home | Shop</nav><h1>Opening hours</h1><p>Our shop is open Monday to Saturday from 9am to 6pm, and closed on Sundays.</p></body></html>");
    } else if (req.url === "/to-private") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data" });
      res.end();
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("not here");
    }
  });
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const built = await buildTestApp({
    config: { OPENAI_BASE_URL: fake.baseUrl, TOOL_ALLOWED_HOSTS: "127.0.0.1", JOB_POLL_INTERVAL_MS: "500", KNOWLEDGE_RETRY_DELAYS_MS: "1000" },
  });
  app = built.app;
  vectors = await databaseHasPgvector(built.db);
  ada = await signUpAndLogIn(app, "Ada");
  bob = await signUpAndLogIn(app, "Bob");
  viewer = await joinAs(app, ada, "viewer", "Vic");
  const saved = await as(app, ada).put("/api/credentials/openai_api_key", { value: fake.apiKey });
  expect(saved.statusCode, saved.body).toBe(200);
  const created = await as(app, ada).post("/api/knowledge-bases", { name: "Customer FAQ", description: "What callers ask" });
  expect(created.statusCode, created.body).toBe(201);
  baseId = (created.json() as KnowledgeBase).id;
});

afterAll(async () => {
  await app?.close();
  await fake?.close();
  await new Promise((resolve) => site?.close(resolve));
});

async function upload(who: SignedUp, base: string, filename: string, type: string, bytes: Buffer, method: "POST" | "PUT" = "POST", docId?: string) {
  const form = multipart("file", filename, type, bytes);
  return app.inject({
    method,
    url: `/api/knowledge-bases/${base}/documents${docId ? `/${docId}` : ""}`,
    headers: { cookie: who.cookie, "content-type": form.contentType },
    payload: form.body,
  });
}

async function settled(who: SignedUp, base: string, id: string, timeoutMs = 20_000): Promise<KnowledgeDocument> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const docs = (await as(app, who).get(`/api/knowledge-bases/${base}/documents`)).json().data as KnowledgeDocument[];
    const doc = docs.find((d) => d.id === id);
    if (doc && (doc.status === "ready" || doc.status === "failed")) return doc;
    if (Date.now() > until) throw new Error(`document ${id} still ${doc?.status} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function search(who: SignedUp, base: string, query: string, limit = 5): Promise<KnowledgeSearchResult> {
  return expectBody(await as(app, who).post(`/api/knowledge-bases/${base}/search`, { query, limit }), 200);
}

describe("documents of every kind are ingested and found with their source", () => {
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    const pdf = await upload(ada, baseId, "returns-policy.pdf", "application/pdf", await makePdf(POLICY_PAGES));
    expect(pdf.statusCode, pdf.body).toBe(202);
    expect((pdf.json() as KnowledgeDocument).status).toBe("queued");
    ids.pdf = (pdf.json() as KnowledgeDocument).id;
    const docx = await upload(ada, baseId, "delivery.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", await makeDocx([
      { text: "Delivery", heading: 1 },
      { text: "Standard delivery takes 3 to 5 working days and costs 4.95 EUR." },
      { text: "Express delivery", heading: 2 },
      { text: "Express delivery arrives the next working day for 9.95 EUR." },
    ]));
    expect(docx.statusCode, docx.body).toBe(202);
    ids.docx = (docx.json() as KnowledgeDocument).id;
    const url = await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { url: `${siteUrl}/hours.html`, refresh: "daily" });
    expect(url.statusCode, url.body).toBe(202);
    ids.url = (url.json() as KnowledgeDocument).id;
    const text = await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { name: "Gift cards", text: "Gift cards are valid for two years and can be used in the shop and online." });
    expect(text.statusCode, text.body).toBe(202);
    ids.text = (text.json() as KnowledgeDocument).id;
    const csv = await upload(ada, baseId, "prices.csv", "text/csv", Buffer.from("product,price\nUmbrella,12 EUR\nRaincoat,45 EUR\n"));
    expect(csv.statusCode, csv.body).toBe(202);
    ids.csv = (csv.json() as KnowledgeDocument).id;
  });

  it("each becomes ready with its passages, pages and embeddings", async () => {
    const pdf = await settled(ada, baseId, ids.pdf!);
    expect(pdf).toMatchObject({ status: "ready", page_count: 2, embedded: vectors, error: null, progress: 100, name: "returns-policy.pdf", source: "upload" });
    expect(pdf.chunk_count).toBeGreaterThanOrEqual(2);
    for (const id of [ids.docx!, ids.url!, ids.text!, ids.csv!]) expect(await settled(ada, baseId, id)).toMatchObject({ status: "ready", embedded: vectors });
    const url = await settled(ada, baseId, ids.url!);
    expect(url.last_fetched_at).not.toBeNull();
    expect(url.last_fetch_error).toBeNull();
    expect(url.refresh).toBe("daily");
    // Embedded in batches through the organisation's key, at the model and length asked for.
    expect(fake.requests.some((r) => r.body?.model === "text-embedding-3-small" && r.body?.dimensions === 512 && Array.isArray(r.body?.input))).toBe(vectors);
  });

  it("the search box finds the right passage, naming its document and page or heading", async () => {
    const returns = await search(ada, baseId, "How many days do I have to return an item?");
    expect(returns.mode).toBe(vectors ? "hybrid" : "full_text");
    expect(returns.passages[0]).toMatchObject({ document_id: ids.pdf, document_name: "returns-policy.pdf", location: "page 2" });
    expect(returns.passages[0]!.text).toContain("within 30 days");
    expect(returns.passages[0]!.score).toBeGreaterThan(0);

    const express = await search(ada, baseId, "how much is express delivery");
    expect(express.passages[0]).toMatchObject({ document_name: "delivery.docx", location: "Express delivery" });
    expect(express.passages[0]!.text).toContain("9.95 EUR");

    const sunday = await search(ada, baseId, "Are you open on Sunday?");
    expect(sunday.passages[0]).toMatchObject({ document_id: ids.url, location: "Opening hours" });
    expect(sunday.passages[0]!.text).not.toContain("Home | Shop");

    const raincoat = await search(ada, baseId, "raincoat price", 1);
    expect(raincoat.passages).toHaveLength(1);
    expect(raincoat.passages[0]!.text).toContain("product: Raincoat; price: 45 EUR");
  });

  it("the base counts its documents and passages; a viewer reads and searches but cannot change", async () => {
    const base = (await as(app, viewer).get(`/api/knowledge-bases/${baseId}`)).json() as KnowledgeBase;
    expect(base.document_count).toBe(5);
    expect(base.chunk_count).toBeGreaterThanOrEqual(6);
    expect((await search(viewer, baseId, "gift card valid")).passages[0]!.document_name).toBe("Gift cards");
    const refused = await as(app, viewer).post(`/api/knowledge-bases/${baseId}/documents`, { name: "x", text: "y" });
    expect(refused.statusCode).toBe(403);
    expect((await as(app, viewer).delete(`/api/knowledge-bases/${baseId}/documents/${ids.text}`)).statusCode).toBe(403);
  });

  it("replacing a document swaps its passages; deleting one removes them at once", async () => {
    const replaced = await upload(ada, baseId, "gift-cards.txt", "text/plain", Buffer.from("Gift cards never expire."), "PUT", ids.text);
    expect(replaced.statusCode, replaced.body).toBe(202);
    expect(await settled(ada, baseId, ids.text!)).toMatchObject({ status: "ready", name: "gift-cards.txt", chunk_count: 1 });
    const after = await search(ada, baseId, "gift card expire");
    expect(after.passages[0]!.text).toBe("Gift cards never expire.");
    expect(after.passages.some((p) => p.text.includes("two years"))).toBe(false);

    expect((await as(app, ada).delete(`/api/knowledge-bases/${baseId}/documents/${ids.text}`)).statusCode).toBe(204);
    expect((await search(ada, baseId, "gift card expire")).passages.some((p) => p.document_id === ids.text)).toBe(false);
    expect((await as(app, ada).delete(`/api/knowledge-bases/${baseId}/documents/${ids.text}`)).statusCode).toBe(404);
  });

  it("re-processing runs the document again", async () => {
    const res = await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents/${ids.csv}/reprocess`);
    expect(res.statusCode, res.body).toBe(202);
    expect((res.json() as KnowledgeDocument).status).toBe("queued");
    expect(await settled(ada, baseId, ids.csv!)).toMatchObject({ status: "ready", chunk_count: 1 });
  });

  it("the audit log names what was done", async () => {
    const entries = (await as(app, ada).get("/api/audit-log")).json() as { data: Array<{ action: string; target_name: string | null }> };
    const actions = entries.data.map((e) => `${e.action}:${e.target_name}`);
    expect(actions).toContain("knowledge_base.created:Customer FAQ");
    expect(actions).toContain("knowledge_document.added:returns-policy.pdf");
    expect(actions).toContain("knowledge_document.deleted:gift-cards.txt");
  });
});

describe("bad input is a clear 4xx or a failed document with its reason", () => {
  it("an empty file, an unknown type, a file over the limit and a missing file are refused", async () => {
    const empty = await upload(ada, baseId, "empty.txt", "text/plain", Buffer.alloc(0));
    expect(empty.statusCode).toBe(400);
    expect(errorOf(empty)).toMatchObject({ code: "empty_file", message: KNOWLEDGE_TEXTS.fileEmpty });
    const exe = await upload(ada, baseId, "setup.exe", "application/octet-stream", Buffer.from("MZ"));
    expect(exe.statusCode).toBe(415);
    expect(errorOf(exe).message).toBe(KNOWLEDGE_TEXTS.fileType);
    const big = await upload(ada, baseId, "big.txt", "text/plain", Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 97));
    expect(big.statusCode).toBe(413);
    expect(errorOf(big)).toMatchObject({ code: "file_too_large", message: KNOWLEDGE_TEXTS.fileTooLarge });
    const other = multipart("doc", "a.txt", "text/plain", Buffer.from("x"));
    const wrongField = await app.inject({ method: "POST", url: `/api/knowledge-bases/${baseId}/documents`, headers: { cookie: ada.cookie, "content-type": other.contentType }, payload: other.body });
    expect(errorOf(wrongField)).toMatchObject({ code: "file_missing", message: KNOWLEDGE_TEXTS.fileMissing });
    const neither = await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { title: "x" });
    expect(errorOf(neither).message).toBe(KNOWLEDGE_TEXTS.bodyShape);
    const ftp = await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { url: "ftp://example.com/a.pdf" });
    expect(ftp.statusCode).toBe(400);
    expect(errorOf(ftp).message).toBe(KNOWLEDGE_TEXTS.urlInvalid);
    const noName = await as(app, ada).post("/api/knowledge-bases", { name: "  " });
    expect(errorOf(noName).message).toBe(KNOWLEDGE_TEXTS.nameRequired);
    const badLimit = await as(app, ada).post(`/api/knowledge-bases/${baseId}/search`, { query: "x", limit: 2 ** 31 });
    expect(badLimit.statusCode).toBe(400);
  });

  it("a PDF with no text, an unreadable DOCX, a URL answering 404 and one redirecting to a private address fail with their reason", async () => {
    const base = (await as(app, ada).post("/api/knowledge-bases", { name: "Broken" })).json() as KnowledgeBase;
    const scan = (await upload(ada, base.id, "scan.pdf", "application/pdf", await makePdf([[]]))).json() as KnowledgeDocument;
    const docx = (await upload(ada, base.id, "broken.docx", "application/octet-stream", Buffer.from("not a zip at all"))).json() as KnowledgeDocument;
    const gone = (await as(app, ada).post(`/api/knowledge-bases/${base.id}/documents`, { url: `${siteUrl}/missing.html` })).json() as KnowledgeDocument;
    const sneaky = (await as(app, ada).post(`/api/knowledge-bases/${base.id}/documents`, { url: `${siteUrl}/to-private` })).json() as KnowledgeDocument;
    expect(await settled(ada, base.id, scan.id)).toMatchObject({ status: "failed", error: KNOWLEDGE_TEXTS.failedPdfNoText, chunk_count: 0 });
    expect(await settled(ada, base.id, docx.id)).toMatchObject({ status: "failed", error: KNOWLEDGE_TEXTS.failedUnreadable("DOCX"), chunk_count: 0 });
    expect(await settled(ada, base.id, gone.id)).toMatchObject({ status: "failed", error: KNOWLEDGE_TEXTS.failedFetchStatus(404), last_fetch_error: KNOWLEDGE_TEXTS.failedFetchStatus(404) });
    const blocked = await settled(ada, base.id, sneaky.id);
    expect(blocked.status).toBe("failed");
    expect(blocked.error).toMatch(/^The address could not be fetched: .*169\.254\.169\.254/);
    // Nothing half-stored: the base has no passages to find.
    expect((await as(app, ada).get(`/api/knowledge-bases/${base.id}`)).json()).toMatchObject({ document_count: 4, chunk_count: 0 });
    expect((await search(ada, base.id, "anything at all")).passages).toEqual([]);
  });


  it("a malformed PDF fails as unreadable on its extraction thread, and the next document is still read", async () => {
    const base = (await as(app, ada).post("/api/knowledge-bases", { name: "Malformed" })).json() as KnowledgeBase;
    const good = await makePdf(POLICY_PAGES);
    // A real PDF's header and first half: pdf.js throws reading it.
    const torn = Buffer.concat([Buffer.from("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 2 0 R >>\nendobj\n"), good.subarray(good.length / 2)]);
    const broken = (await upload(ada, base.id, "torn.pdf", "application/pdf", torn)).json() as KnowledgeDocument;
    const next = (await upload(ada, base.id, "policy.pdf", "application/pdf", good)).json() as KnowledgeDocument;
    expect(await settled(ada, base.id, broken.id)).toMatchObject({ status: "failed", error: KNOWLEDGE_TEXTS.failedUnreadable("PDF"), chunk_count: 0 });
    expect(await settled(ada, base.id, next.id)).toMatchObject({ status: "ready", page_count: 2, error: null });
    expect((await as(app, ada).get("/api/health")).statusCode).toBe(200);
  });
  it("another organisation's base and documents answer 404, and it cannot attach them", async () => {
    expect((await as(app, bob).get(`/api/knowledge-bases/${baseId}`)).statusCode).toBe(404);
    expect((await as(app, bob).get(`/api/knowledge-bases/${baseId}/documents`)).statusCode).toBe(404);
    expect((await as(app, bob).post(`/api/knowledge-bases/${baseId}/search`, { query: "returns" })).statusCode).toBe(404);
    expect((await as(app, bob).post(`/api/knowledge-bases/${baseId}/documents`, { name: "x", text: "y" })).statusCode).toBe(404);
    expect((await as(app, bob).delete(`/api/knowledge-bases/${baseId}`)).statusCode).toBe(404);
    expect((await as(app, bob).get("/api/knowledge-bases")).json().data).toEqual([]);
    expect((await as(app, ada).get("/api/knowledge-bases/not-a-uuid")).statusCode).toBe(404);
  });
});

describe("embeddings failing, or no key: words still find the passage", () => {
  it("a 429 with Retry-After is retried and the document is embedded", async () => {
    const before = fake.requests.length;
    fake.enqueue({ kind: "error", status: 429, code: "rate_limit_exceeded", message: "Rate limit reached", headers: { "retry-after": "1" } });
    const doc = (await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { name: "Parking", text: "Customers park for free in the yard behind the shop." })).json() as KnowledgeDocument;
    expect(await settled(ada, baseId, doc.id)).toMatchObject({ status: "ready", embedded: vectors });
    if (vectors) expect(fake.requests.slice(before).map((r) => r.status)).toEqual(expect.arrayContaining([429, 200]));
    else expect(fake.requests.slice(before)).toEqual([]);
  });

  it("5xx past the retries: stored for words only, and still found", async () => {
    fake.enqueue({ kind: "error", status: 503, message: "The server is overloaded" }, { kind: "error", status: 503, message: "The server is overloaded" });
    const doc = (await as(app, ada).post(`/api/knowledge-bases/${baseId}/documents`, { name: "Loyalty", text: "Members collect one stamp per purchase; ten stamps earn a free coffee." })).json() as KnowledgeDocument;
    expect(await settled(ada, baseId, doc.id)).toMatchObject({ status: "ready", embedded: false, error: null });
    const found = await search(ada, baseId, "how many stamps for a free coffee");
    expect(found.passages.find((p) => p.document_id === doc.id)?.text).toContain("ten stamps earn a free coffee");
  });

  it("an organisation without a key searches by words, and the page is told so", async () => {
    const base = (await as(app, bob).post("/api/knowledge-bases", { name: "Bob's FAQ" })).json() as KnowledgeBase;
    const doc = (await as(app, bob).post(`/api/knowledge-bases/${base.id}/documents`, { name: "Hours", text: "We are open every day from 8 to 20." })).json() as KnowledgeDocument;
    expect(await settled(bob, base.id, doc.id)).toMatchObject({ status: "ready", embedded: false });
    const found = await search(bob, base.id, "when are you open");
    expect(found.mode).toBe("full_text");
    expect(found.passages[0]!.text).toContain("every day");
    expect((await as(app, bob).get("/api/knowledge-bases/status")).json()).toEqual(
      vectors ? { vectors: true, notice: KNOWLEDGE_TEXTS.fullTextOnly } : { vectors: false, notice: KNOWLEDGE_TEXTS.fullTextOnlyServer },
    );
    expect((await as(app, ada).get("/api/knowledge-bases/status")).json()).toEqual(vectors ? { vectors: true, notice: null } : { vectors: false, notice: KNOWLEDGE_TEXTS.fullTextOnlyServer });
  });
});
