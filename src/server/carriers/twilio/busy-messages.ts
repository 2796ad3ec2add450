/**
 * The busy message per account, for the voice webhook of a full instance, which must answer at
 * once: kept in memory by number for a minute, and read from the database only within a few
 * milliseconds — a caller never waits on a busy database to hear that the lines are busy; on a
 * miss that does not answer in time they hear the default, and the next caller hears the
 * account's. A change made on this instance applies at once; on the others within a minute.
 */
import { PHONE_BUSY_MESSAGE, type BusyMessageSettings } from "../../../shared/calls.ts";
import type { Db } from "../../db/client.ts";
import { findBusyMessageByNumber, readBusyMessage, saveBusyMessage } from "./busy-message.repo.ts";

const CACHE_MS = 60_000;
/** How long a full instance's webhook waits for an uncached message before saying the default. */
export const BUSY_LOOKUP_BUDGET_MS = 25;
const CACHE_LIMIT = 10_000;

interface Cached {
  organizationId: string | null;
  message: string;
  until: number;
}

export interface BusyMessages {
  /** What a caller to `e164` hears when every line is taken (never slower than the budget). */
  forNumber(e164: string | undefined): Promise<string>;
  /** Settings → Calls. */
  settings(organizationId: string): Promise<BusyMessageSettings>;
  save(organizationId: string, settings: BusyMessageSettings): Promise<BusyMessageSettings>;
}

export function createBusyMessages(db: Db, now: () => number = Date.now): BusyMessages {
  const cache = new Map<string, Cached>();
  const pending = new Map<string, Promise<string>>();

  const load = (e164: string): Promise<string> => {
    let loading = pending.get(e164);
    if (!loading) {
      loading = findBusyMessageByNumber(db, e164)
        .then((row) => {
          const message = row?.message ?? PHONE_BUSY_MESSAGE;
          if (cache.size >= CACHE_LIMIT) cache.clear();
          cache.set(e164, { organizationId: row?.organizationId ?? null, message, until: now() + CACHE_MS });
          return message;
        })
        .catch(() => PHONE_BUSY_MESSAGE)
        .finally(() => pending.delete(e164));
      pending.set(e164, loading);
    }
    return loading;
  };

  return {
    async forNumber(e164) {
      if (!e164) return PHONE_BUSY_MESSAGE;
      const cached = cache.get(e164);
      if (cached && cached.until > now()) return cached.message;
      let timer: NodeJS.Timeout | undefined;
      const budget = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(cached?.message ?? PHONE_BUSY_MESSAGE), BUSY_LOOKUP_BUDGET_MS)));
      try {
        return await Promise.race([load(e164), budget]);
      } finally {
        clearTimeout(timer);
      }
    },

    async settings(organizationId) {
      return { busy_message: (await readBusyMessage(db, organizationId)) ?? PHONE_BUSY_MESSAGE };
    },

    async save(organizationId, settings) {
      const message = settings.busy_message === "" || settings.busy_message === PHONE_BUSY_MESSAGE ? null : settings.busy_message;
      await saveBusyMessage(db, organizationId, message);
      for (const [e164, cached] of cache) if (cached.organizationId === organizationId) cache.delete(e164);
      return { busy_message: message ?? PHONE_BUSY_MESSAGE };
    },
  };
}
