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

type Body = Record<string, unknown> | unknown[] | undefined;

/** JSON over fetch with the session cookie. Errors come as `{ error: { code, message } }` (ours) or `{ code, message }` (auth). */
export async function api<T>(path: string, init: { method?: string; body?: Body } = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? (init.body ? "POST" : "GET"),
      credentials: "same-origin",
      headers: init.body ? { "content-type": "application/json" } : undefined,
      body: init.body ? JSON.stringify(init.body) : undefined,
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

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
