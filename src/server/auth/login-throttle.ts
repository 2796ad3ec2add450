import { createMemoryThrottleStore, type ThrottleStore } from "./throttle-store.ts";

/**
 * Brakes password guessing without handing an attacker a way to lock the owner out: failures are
 * counted per (e-mail, client address) pair and per client address, never per e-mail alone, so
 * the owner signing in from their own address is not slowed by someone guessing from another.
 * Past a few free failures each further one doubles the wait, up to `maxDelayMs`.
 */
export interface LoginThrottle {
  /** Milliseconds until another attempt is allowed, or 0. */
  retryAfterMs(attempt: LoginAttempt, now?: number): Promise<number>;
  recordFailure(attempt: LoginAttempt, now?: number): Promise<void>;
  /** A successful login clears its pair; the address's count stays (a guesser could own an account too). */
  recordSuccess(attempt: LoginAttempt): Promise<void>;
}

export interface LoginAttempt {
  email: string;
  ip: string;
}

interface Rule {
  /** Failures allowed without any wait. */
  free: number;
  /** Wait after the first failure beyond `free`; each further one doubles it. */
  baseDelayMs: number;
}

export interface LoginThrottleOptions {
  store?: ThrottleStore;
  /** One person mistyping their own password. */
  pair?: Rule;
  /** One address trying many accounts (an office behind NAT shares one, hence more room). */
  address?: Rule;
  maxDelayMs?: number;
  /** How long a counter is remembered after its latest failure. */
  memoryMs?: number;
}

export const LOGIN_THROTTLE_DEFAULTS = {
  pair: { free: 5, baseDelayMs: 30_000 },
  address: { free: 20, baseDelayMs: 30_000 },
  maxDelayMs: 15 * 60_000,
  memoryMs: 60 * 60_000,
} as const;

/** Wait owed after `failures` failures under `rule`. */
export function delayAfter(failures: number, rule: Rule, maxDelayMs: number): number {
  if (failures < rule.free) return 0;
  const doublings = Math.min(failures - rule.free, 30);
  return Math.min(maxDelayMs, rule.baseDelayMs * 2 ** doublings);
}

export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const store = options.store ?? createMemoryThrottleStore();
  const pair = options.pair ?? LOGIN_THROTTLE_DEFAULTS.pair;
  const address = options.address ?? LOGIN_THROTTLE_DEFAULTS.address;
  const maxDelayMs = options.maxDelayMs ?? LOGIN_THROTTLE_DEFAULTS.maxDelayMs;
  const memoryMs = options.memoryMs ?? LOGIN_THROTTLE_DEFAULTS.memoryMs;
  const keys = ({ email, ip }: LoginAttempt) =>
    [
      [`login:pair:${email.trim().toLowerCase()}|${ip}`, pair],
      [`login:ip:${ip}`, address],
    ] as const;

  return {
    async retryAfterMs(attempt, now = Date.now()) {
      let wait = 0;
      for (const [key, rule] of keys(attempt)) {
        const counter = await store.get(key, now);
        if (!counter) continue;
        wait = Math.max(wait, counter.lastFailureAt + delayAfter(counter.failures, rule, maxDelayMs) - now);
      }
      return wait;
    },
    async recordFailure(attempt, now = Date.now()) {
      for (const [key] of keys(attempt)) await store.increment(key, now, memoryMs);
    },
    async recordSuccess(attempt) {
      await store.delete(keys(attempt)[0][0]);
    },
  };
}
