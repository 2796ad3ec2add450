/** What the primary of `npm start` (cluster.ts) tells its workers over the cluster channel. */
export interface ShutdownMessage {
  switchboard: "shutdown";
  signal: "SIGTERM" | "SIGINT";
}

export function isShutdownMessage(value: unknown): value is ShutdownMessage {
  return typeof value === "object" && value !== null && (value as { switchboard?: unknown }).switchboard === "shutdown";
}
