import type { z } from "zod";

/** The ws:// or wss:// address of one of the app's sockets, on the page's own host (the server checks Origin). */
export function socketUrl(path: string, location: Location = window.location): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}

/** A text frame read with its socket's shared schema; undefined for one this client does not know (a newer server's), which callers ignore. */
export function parseFrame<S extends z.ZodType>(schema: S, data: string): z.output<S> | undefined {
  try {
    return schema.parse(JSON.parse(data));
  } catch {
    return undefined;
  }
}
