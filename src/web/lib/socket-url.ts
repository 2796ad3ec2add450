/** The ws:// or wss:// address of one of the app's sockets, on the page's own host (the server checks Origin). */
export function socketUrl(path: string, location: Location = window.location): string {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}${path}`;
}
