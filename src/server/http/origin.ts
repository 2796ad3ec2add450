/**
 * Whether a browser's Origin header names our own public address. Browsers always send Origin on
 * a WebSocket upgrade and the session cookie rides along whatever page opened it, so a socket
 * that acts for the signed-in user must refuse other origins (cross-site WebSocket hijacking).
 * No Origin at all is a non-browser client: it has to hold the cookie itself, nothing to hijack.
 */
export function isOwnOrigin(origin: string | undefined, publicUrl: string): boolean {
  if (origin === undefined) return true;
  try {
    return new URL(origin).origin === new URL(publicUrl).origin;
  } catch {
    return false;
  }
}
