/**
 * One delivery attempt: a POST through the tools' HTTP client, so the same SSRF guard applies
 * (private, loopback and link-local addresses refused unless in WEBHOOK_ALLOWED_HOSTS, checked on
 * the address connected to) and redirects are not followed — a 3xx is a failed attempt.
 *
 * Any 2xx is a success whatever the answer's size: only the status counts, so no more than the
 * start of the body is read (kept, for a failed attempt, in its error), then the connection closes.
 */
import { WEBHOOK_ATTEMPT_TIMEOUT_MS } from "../../../shared/webhooks.ts";
import { isToolExecutionError, sendRequest, systemResolver, ToolExecutionError, type Resolver } from "../../tools/index.ts";
import { signWebhook } from "./webhook-signature.ts";

export interface AttemptResult {
  ok: boolean;
  /** The endpoint's HTTP status; null when none came (refused, timed out, unreachable). */
  statusCode: number | null;
  error: string | null;
}

export interface SenderOptions {
  allowedHosts: readonly string[];
  resolve?: Resolver;
  timeoutMs?: number;
}

/** What is read of an answer: enough for an error's excerpt. */
const READ_BYTES = 1024;
/** The excerpt of a failed attempt's answer kept with its error. */
const EXCERPT_CHARS = 200;

function excerpt(body: Buffer): string {
  // A cut multi-byte character decodes as U+FFFD at the end; control characters (U+0000 too, which text columns refuse) become spaces.
  const text = body.toString("utf8").replace(/\uFFFD+$/, "").replace(/[\p{Cc}\s]+/gu, " ").trim();
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export async function attemptDelivery(
  target: { url: string; secrets: readonly string[]; messageId: string; body: string },
  options: SenderOptions,
): Promise<AttemptResult> {
  const timeoutMs = options.timeoutMs ?? WEBHOOK_ATTEMPT_TIMEOUT_MS;
  const headers = {
    ...signWebhook(target.secrets, target.messageId, Math.floor(Date.now() / 1000), target.body),
    "content-type": "application/json",
    "user-agent": "Switchboard-Webhooks/1",
  };
  // The abort reason must be one of the client's own errors: it is what the request rejects with.
  const url = new URL(target.url);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new ToolExecutionError("tool_timeout", `${url.host} did not answer within ${timeoutMs / 1000} s.`, { host: url.host })), timeoutMs);
  const signal = controller.signal;
  try {
    const result = await sendRequest(
      { method: "POST", url, headers, body: Buffer.from(target.body), configuredHeaders: [] },
      { allowedHosts: options.allowedHosts, resolve: options.resolve ?? systemResolver, connectTimeoutMs: timeoutMs, maxBytes: READ_BYTES, truncate: true, allowSetting: "WEBHOOK_ALLOWED_HOSTS", signal },
    );
    if (result.kind === "redirect") return { ok: false, statusCode: result.status, error: `Redirects are not followed (${result.status} to ${result.location})` };
    const ok = result.status >= 200 && result.status < 300;
    if (ok) return { ok, statusCode: result.status, error: null };
    const said = excerpt(result.body);
    return { ok, statusCode: result.status, error: `HTTP ${result.status}${said ? `: ${said}` : ""}` };
  } catch (err) {
    if (isToolExecutionError(err)) return { ok: false, statusCode: null, error: err.message };
    return { ok: false, statusCode: null, error: err instanceof Error ? err.message : String(err) };
  } finally {
    clearTimeout(timer);
  }
}
