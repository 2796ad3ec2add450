/**
 * Whether a browser's Origin header names our own public address. Browsers always send Origin on
 * a WebSocket upgrade and the session cookie rides along whatever page opened it, so a socket
 * that acts for the signed-in user must refuse other origins (cross-site WebSocket hijacking).
 * No Origin at all is a non-browser client: it has to hold the cookie itself, nothing to hijack.
 */
import { AppError } from "../errors.ts";

export function isOwnOrigin(origin: string | undefined, publicUrl: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}

/** Refuses (403 `forbidden_origin`) a socket opened from another site's page; `what` names the socket. */
export function requireOwnOrigin(origin: string | undefined, publicUrl: string, what: string): void {
  if (!isOwnOrigin(origin, publicUrl)) throw new AppError(403, "forbidden_origin", `${what} can only be opened from this site's own pages.`);
}
