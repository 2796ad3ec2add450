import { PAGE_LIMIT_MAX, type Page } from "@shared/pages";

/** An API failure carrying the server's message, ready to show to the user. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** JSON, or a form (file uploads: the browser sets the multipart boundary itself). */
type Body = Record<string, unknown> | unknown[] | FormData | undefined;

/**
 * GET requests started before React renders (app/route-preload.ts), so the session check and a
 * page's data travel alongside its code instead of after it. The first `api()` GET of the same
 * path takes the response over; one left unclaimed for long is dropped rather than served stale,
 * and every one is dropped by the first request that may change state (a login, a save): a
 * response read before signing in must never answer a request made after it.
 */
const early = new Map<string, { at: number; response: Promise<Response | null> }>();
const EARLY_MAX_AGE_MS = 10_000;

export function prefetchGet(path: string) {
  if (early.has(path)) return;
  early.set(path, { at: Date.now(), response: fetch(path, { credentials: "same-origin" }).catch(() => null) });
}

async function takeEarly(path: string): Promise<Response | null> {
  const entry = early.get(path);
  if (!entry) return null;
  early.delete(path);
  return Date.now() - entry.at <= EARLY_MAX_AGE_MS ? entry.response : null;
}

/** JSON over fetch with the session cookie. Errors come as `{ error: { code, message } }` (ours) or `{ code, message }` (auth). */
export async function api<T>(path: string, init: { method?: string; body?: Body } = {}): Promise<T> {
  const method = init.method ?? (init.body ? "POST" : "GET");
  if (method !== "GET") early.clear();
  let res: Response;
  try {
    const prefetched = method === "GET" ? await takeEarly(path) : null;
    res = prefetched ?? await fetch(path, {
      method,
      credentials: "same-origin",
      headers: init.body && !(init.body instanceof FormData) ? { "content-type": "application/json" } : undefined,
      body: init.body instanceof FormData ? init.body : init.body ? JSON.stringify(init.body) : undefined,
    });
  } catch {
    throw new ApiError(0, "network_error", "Could not reach the server. Check your connection and try again.");
  }
  const text = await res.text();
  const data = text ? safeJson(text) : null;
  if (!res.ok) {
    const err = (data as { error?: { code?: string; message?: string } } | null)?.error ?? (data as { code?: string; message?: string } | null);
    throw new ApiError(res.status, err?.code ?? "error", err?.message || res.statusText || "Request failed");
  }
  return data as T;
}

/** The address of a list's page: `?limit=200` (the most a page holds) and the cursor when there is one. */
export const listPagePath = (path: string, cursor?: string | null): string =>
  `${path}${path.includes("?") ? "&" : "?"}limit=${PAGE_LIMIT_MAX}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;

/**
 * A whole list as one page, walking its pages (src/shared/pages.ts): every item in `data`, and the
 * fields a list keeps beside its items (a version list's `live_version`) as its first page gave them.
 */
export async function apiWholePage<P extends Page<unknown>>(path: string): Promise<P> {
  const first = await api<P>(listPagePath(path));
  const items = [...first.data];
  let cursor = first.next_cursor;
  while (cursor) {
    const page: P = await api<P>(listPagePath(path, cursor));
    items.push(...page.data);
    cursor = page.next_cursor;
  }
  return { ...first, data: items, next_cursor: null };
}

/** Every item of a list — for screens that show the whole list. */
export const apiList = async <T>(path: string): Promise<T[]> => (await apiWholePage<Page<T>>(path)).data;

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A POST whose answer is a file (a voice preview's audio): the body as a Blob, or the API's error. */
export async function apiBlob(path: string, body: unknown): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  } catch {
    throw new ApiError(0, "network_error", "Could not reach the server. Check your connection and try again.");
  }
  if (!res.ok) {
    const data = safeJson(await res.text()) as { error?: { code?: string; message?: string } } | null;
    throw new ApiError(res.status, data?.error?.code ?? "error", data?.error?.message || res.statusText || "Request failed");
  }
  return res.blob();
}
