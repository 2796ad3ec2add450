/**
 * Where the failed-login counters live. The throttle (login-throttle.ts) only talks to this
 * interface, so counting across instances is one new file implementing it (a PostgreSQL upsert,
 * or Redis HINCRBY + PEXPIRE) passed to `createLoginThrottle` instead of the memory store.
 */
export interface ThrottleCounter {
  failures: number;
  /** Epoch milliseconds of the latest failure. */
  lastFailureAt: number;
}

export interface ThrottleStore {
  get(key: string, now: number): Promise<ThrottleCounter | null>;
  /** Counts one failure at `now`; the key is forgotten `ttlMs` after its latest failure. */
  increment(key: string, now: number, ttlMs: number): Promise<ThrottleCounter>;
  delete(key: string): Promise<void>;
}

/** One process's memory: a restart forgets the counts and several instances count separately. */
export function createMemoryThrottleStore({ maxKeys = 50_000 } = {}): ThrottleStore {
  const entries = new Map<string, ThrottleCounter & { expiresAt: number }>();
  const live = (key: string, now: number) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  return {
    async get(key, now) {
      const entry = live(key, now);
      return entry ? { failures: entry.failures, lastFailureAt: entry.lastFailureAt } : null;
    },
    async increment(key, now, ttlMs) {
      const failures = (live(key, now)?.failures ?? 0) + 1;
      // Re-inserting keeps the Map in order of last failure, so the oldest are evicted first.
      entries.delete(key);
      entries.set(key, { failures, lastFailureAt: now, expiresAt: now + ttlMs });
      if (entries.size > maxKeys) {
        for (const [k, e] of entries) {
          if (entries.size <= maxKeys && e.expiresAt > now) break;
          entries.delete(k);
        }
      }
      return { failures, lastFailureAt: now };
    },
    async delete(key) {
      entries.delete(key);
    },
  };
}
