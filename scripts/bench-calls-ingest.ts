/**
 * Child process of bench:calls `--ingest N`: N PDF documents uploaded to a knowledge base through
 * the real API (a real socket, the owner's session) while the calls stream, then ingested by the
 * app's own job queue in the same process as the calls — extraction, splitting, embeddings from
 * the fake provider's `/embeddings` (bench-calls-provider.ts), the store (a few rows per
 * statement, then one small publishing transaction: ADR 080) and the HNSW index's inserts. What
 * the calls feel of it is the point: the run is compared with one without. The uploads and the
 * polling of the documents' states are a browser's work, not the server's: run in the server's
 * process they held its event loop, and the bench counted that against the server.
 */
import type { KnowledgeDocument } from "../src/shared/knowledge.ts";
import { makePdf, multipart } from "../tests/knowledge-files.ts";
import type { IngestMessage, IngestRequest, IngestResult } from "./bench-calls-shared.ts";
import { nextMessage, send } from "./bench-voice-shared.ts";

const words = ["refund", "delivery", "warranty", "invoice", "opening", "parking", "booking", "account", "payment", "return", "store", "order"];

/** A document of `pages` pages, 30 lines of ten words each (about one passage a page). */
function benchPdf(n: number, pages: number): Promise<Buffer> {
  return makePdf(Array.from({ length: pages }, (_, p) => Array.from({ length: 30 }, (_, l) => `${n}.${p + 1}.${l + 1} ${Array.from({ length: 10 }, (_, w) => words[(n * 7 + p * 3 + l + w) % words.length]).join(" ")}`)));
}

/**
 * How often the documents' states are asked for: as the Knowledge page asks while one is
 * processing (web/features/knowledge/use-knowledge.ts), since each ask is a request the server
 * serves on the calls' thread (the session, the list).
 */
const POLL_MS = 1000;

/** Uploads the documents and waits until every one is ready or failed, at most `waitMs`. */
async function ingestDuringCalls(app: { origin: string; cookie: string }, pdfs: readonly Buffer[], waitMs: number): Promise<IngestResult> {
  const api = (path: string, init: RequestInit = {}) => fetch(`${app.origin}${path}`, { ...init, headers: { cookie: app.cookie, ...init.headers } });
  const base = (await (await api("/api/knowledge-bases", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: `Bench ${Date.now()}` }) })).json()) as { id: string };
  const started = performance.now();
  for (const [i, pdf] of pdfs.entries()) {
    const form = multipart("file", `bench-${i + 1}.pdf`, "application/pdf", pdf);
    const res = await api(`/api/knowledge-bases/${base.id}/documents`, { method: "POST", headers: { "content-type": form.contentType }, body: new Uint8Array(form.body) });
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  }
  let docs: KnowledgeDocument[] = [];
  const settled = (d: KnowledgeDocument) => d.status === "ready" || d.status === "failed";
  while (performance.now() - started < waitMs) {
    // A page of documents (limit 200, more than any bench uploads): { data, next_cursor }.
    docs = ((await (await api(`/api/knowledge-bases/${base.id}/documents?limit=200`)).json()) as { data: KnowledgeDocument[] }).data;
    if (docs.length === pdfs.length && docs.every(settled)) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return {
    documents: pdfs.length,
    ready: docs.filter((d) => d.status === "ready").length,
    failed: docs.filter((d) => d.status === "failed").length,
    passages: docs.reduce((sum, d) => sum + (d.chunk_count ?? 0), 0),
    seconds: (performance.now() - started) / 1000,
  };
}

// The documents are made before the window (making them is not the server's work), then uploaded at its start.
const start = await nextMessage<IngestRequest, "start">(process, "start");
const pdfs = await Promise.all(Array.from({ length: start.documents }, (_, i) => benchPdf(i + 1, start.pages)));
send(process, { type: "ready" } satisfies IngestMessage);
const { waitMs } = await nextMessage<IngestRequest, "go">(process, "go", 600_000);
send(process, { type: "done", result: await ingestDuringCalls(start, pdfs, waitMs) } satisfies IngestMessage);
process.disconnect();
