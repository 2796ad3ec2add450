/**
 * Counters with an expiry, shared by every instance of the server: rate-limit windows,
 * failed-login counts and single-use tokens. PostgreSQL by default (pg-counter-store.ts), Redis
 * when REDIS_URL is set (redis-counter-store.ts); both behave the same (shared-state.test.ts
 * runs one suite against each). See docs/decisions/025-shared-state.md.
 *
 * Windows are fixed: the first increment of a key starts a window of `ttlMs`; later increments
 * count into it until it expires, and the next one starts a new window. Expiry is judged by the
 * store's own clock (the database's or Redis's), so instances with skewed clocks still agree.
 */
export interface CounterState {
  /** Increments counted in the current window. */
  count: number;
  /** Milliseconds until the window ends and the count starts again from zero. */
  resetInMs: number;
}

export interface CounterStore {
  readonly kind: "postgres" | "redis";
  /** Adds one to `key`, starting a new window of `ttlMs` when it has none; returns the new state. */
  increment(key: string, ttlMs: number): Promise<CounterState>;
  /** The current window of `key`, or null when it has none (never counted, expired or reset). */
  get(key: string): Promise<CounterState | null>;
  /** Forgets `key` (e.g. the failed logins of an e-mail after a successful one). */
  reset(key: string): Promise<void>;
  /**
   * Marks `key` used for `ttlMs`: true for the one caller that gets there first, false for every
   * later caller on any instance until it expires. For single-use tokens (key: the token's nonce,
   * ttl: the token's remaining life).
   */
  consumeOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Drops expired entries (PostgreSQL; Redis expires keys itself). Called periodically. */
  prune(): Promise<number>;
  close(): Promise<void>;
}

/** Keys are namespaced by use so a token nonce can never be counted as a rate-limit key. */
export const counterKey = {
  rateLimit: (route: string, client: string) => `rl:${route}:${client}`,
  token: (kind: string, nonce: string) => `tok:${kind}:${nonce}`,
  /** For the login throttle: `login:ip:<address>`, `login:pair:<email>:<address>`, ... */
  login: (...parts: string[]) => `login:${parts.join(":")}`,
  /** For the e-mail throttle: `mail:address:<email>`, `mail:client:<address>`. */
  mail: (...parts: string[]) => `mail:${parts.join(":")}`,
} as const;

/** A positive whole number of milliseconds; stores round up so a window never ends early. */
export function ttlOf(ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`A counter's time to live must be positive, got ${ms}`);
  return Math.ceil(ms);
}
