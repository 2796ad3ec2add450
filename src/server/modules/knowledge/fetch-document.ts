/**
 * A URL document's bytes, fetched through the tools' HTTP client: the same SSRF guard (private
 * and local addresses refused unless TOOL_ALLOWED_HOSTS names the host), each redirect checked
 * again, the 20 MB cap counted after decompression. Failures come back as the sentence the
 * document shows, never thrown.
 */
import { MAX_DOCUMENT_BYTES, KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";
import { isToolExecutionError, sendRequest, systemResolver, type Resolver } from "../../tools/index.ts";

const MAX_REDIRECTS = 5;
const FETCH_TIMEOUT_MS = 30_000;

export type Fetched = { ok: true; bytes: Buffer; contentType: string | null; url: string } | { ok: false; error: string; retryable: boolean };

export async function fetchDocument(address: string, options: { allowedHosts: readonly string[]; resolve?: Resolver }): Promise<Fetched> {
  const signal = AbortSignal.timeout(FETCH_TIMEOUT_MS);
  let url = new URL(address);
  try {
    for (let hop = 0; ; hop++) {
      const result = await sendRequest(
        { method: "GET", url, headers: { accept: "text/html, application/pdf, text/*;q=0.9, */*;q=0.5", "user-agent": "Switchboard-KnowledgeBase/1" }, body: null, configuredHeaders: [] },
        { allowedHosts: options.allowedHosts, resolve: options.resolve ?? systemResolver, connectTimeoutMs: 10_000, maxBytes: MAX_DOCUMENT_BYTES, signal },
      );
      if (result.kind === "redirect") {
        if (hop >= MAX_REDIRECTS) return { ok: false, error: KNOWLEDGE_TEXTS.failedFetch(`more than ${MAX_REDIRECTS} redirects.`), retryable: false };
        const next = new URL(result.location, url);
        if (next.protocol !== "http:" && next.protocol !== "https:") return { ok: false, error: KNOWLEDGE_TEXTS.failedFetch("it redirected to an address that is not http or https."), retryable: false };
        url = next;
        continue;
      }
      if (result.status < 200 || result.status >= 300) {
        return { ok: false, error: KNOWLEDGE_TEXTS.failedFetchStatus(result.status), retryable: result.status === 429 || result.status >= 500 };
      }
      const type = result.headers["content-type"];
      return { ok: true, bytes: result.body, contentType: typeof type === "string" ? type : null, url: url.toString() };
    }
  } catch (err) {
    if (isToolExecutionError(err)) return { ok: false, error: KNOWLEDGE_TEXTS.failedFetch(err.message), retryable: err.code === "tool_connection_failed" || err.code === "tool_dns_failed" || err.code === "tool_timeout" || err.code === "tool_connect_timeout" };
    if (signal.aborted) return { ok: false, error: KNOWLEDGE_TEXTS.failedFetch(`no answer within ${FETCH_TIMEOUT_MS / 1000} s.`), retryable: true };
    throw err;
  }
}
