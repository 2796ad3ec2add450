/**
 * What a provider reported to the handlers a call gives it (RealtimeProviderHandlers), kept in
 * order, with `until` to wait for a condition on it.
 */
import type { RealtimeProviderHandlers } from "../../src/server/voice/providers/openai-realtime.ts";
import type { RealtimeServerEvent } from "../../src/server/voice/providers/realtime-protocol.ts";

export function recordProviderHandlers() {
  const events: RealtimeServerEvent[] = [];
  const errors: Array<[string, boolean]> = [];
  const closes: Array<[number, string]> = [];
  let opened = false;
  const waiters = new Set<() => void>();
  const notify = () => waiters.forEach((w) => w());
  const handlers: RealtimeProviderHandlers = {
    open: () => {
      opened = true;
      notify();
    },
    event: (e) => {
      events.push(e);
      notify();
    },
    error: (message, beforeOpen) => {
      errors.push([message, beforeOpen]);
      notify();
    },
    close: (code, reason) => {
      closes.push([code, reason]);
      notify();
    },
  };
  const until = (check: () => boolean) =>
    new Promise<void>((resolve, reject) => {
      if (check()) return resolve();
      const timer = setTimeout(() => reject(new Error("timeout")), 3000);
      const w = () => {
        if (check()) {
          waiters.delete(w);
          clearTimeout(timer);
          resolve();
        }
      };
      waiters.add(w);
    });
  return { handlers, events, errors, closes, until, opened: () => opened };
}
