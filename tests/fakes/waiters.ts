import type WebSocket from "ws";

/** Conditions a test waits for on a socket fake: each is checked now and again after every event the fake notifies. */
export class Waiters {
  private readonly waiting = new Set<() => void>();

  notify(): void {
    for (const waiter of this.waiting) waiter();
  }

  /** Resolves once `check` holds; rejects after `timeoutMs` with `failure()`'s message. */
  until(check: () => boolean, failure: () => string, timeoutMs: number): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = () => {
        if (!check()) return;
        this.waiting.delete(waiter);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.delete(waiter);
        reject(new Error(failure()));
      }, timeoutMs);
      this.waiting.add(waiter);
    });
  }
}

/** Resolves once `ws` is open; rejects with ws's "Unexpected server response: <status>" when the upgrade is refused. */
export function socketOpened(ws: WebSocket): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
}
