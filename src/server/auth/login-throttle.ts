import { counterKey, type CounterStore } from "../shared-state/index.ts";

/**
 * Brakes password guessing without handing an attacker a way to lock the owner out: failures are
 * counted per (e-mail, client address) pair and per client address, never per e-mail alone, so
 * the owner signing in from their own address is not slowed by someone guessing from another.
 * Past a few free failures each further one doubles the wait, up to `maxDelayMs`.
 *
 * The counts live in the shared CounterStore (PostgreSQL, or Redis with REDIS_URL), so every
 * instance behind a load balancer sees the same failures and the same waits; the store's clock
 * decides when a wait ends. See docs/decisions/007-auth-edge-and-login-throttle.md.
 */
export interface LoginThrottle {
  /** Milliseconds until another attempt is allowed, or 0. */
  retryAfterMs(attempt: LoginAttempt): Promise<number>;
  recordFailure(attempt: LoginAttempt): Promise<void>;
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
  /** One person mistyping their own password. */
  pair?: Rule;
  /** One address trying many accounts (an office behind NAT shares one, hence more room). */
  address?: Rule;
  maxDelayMs?: number;
  /** How long failures are counted: a window starting at the first failure of a pair or address. */
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

/** Each rule has two keys: its failure count, and a "blocked until" key whose window is the wait owed. */
function keysOf({ email, ip }: LoginAttempt) {
  // The e-mail is encoded so its characters can never run into the address's (IPv6 has colons).
  const pair = [encodeURIComponent(email.trim().toLowerCase()), ip];
  return {
    pair: { failures: counterKey.login("pair", ...pair), blocked: counterKey.login("pair-wait", ...pair) },
    address: { failures: counterKey.login("ip", ip), blocked: counterKey.login("ip-wait", ip) },
  };
}

export function createLoginThrottle(counters: CounterStore, options: LoginThrottleOptions = {}): LoginThrottle {
  const rules = { pair: options.pair ?? LOGIN_THROTTLE_DEFAULTS.pair, address: options.address ?? LOGIN_THROTTLE_DEFAULTS.address };
  const maxDelayMs = options.maxDelayMs ?? LOGIN_THROTTLE_DEFAULTS.maxDelayMs;
  const memoryMs = options.memoryMs ?? LOGIN_THROTTLE_DEFAULTS.memoryMs;

  const count = async (keys: { failures: string; blocked: string }, rule: Rule) => {
    const { count: failures } = await counters.increment(keys.failures, memoryMs);
    const wait = delayAfter(failures, rule, maxDelayMs);
    if (wait <= 0) return;
    // Only ever lengthen a wait. Two failures at the same instant may leave the shorter of their
    // two waits; the next failure corrects it, and no wait is lost.
    const current = await counters.get(keys.blocked);
    if (current && current.resetInMs >= wait) return;
    await counters.reset(keys.blocked);
    await counters.increment(keys.blocked, wait);
  };

  return {
    async retryAfterMs(attempt) {
      const keys = keysOf(attempt);
      const blocks = await Promise.all([counters.get(keys.pair.blocked), counters.get(keys.address.blocked)]);
      return Math.max(0, ...blocks.map((b) => b?.resetInMs ?? 0));
    },
    async recordFailure(attempt) {
      const keys = keysOf(attempt);
      await Promise.all([count(keys.pair, rules.pair), count(keys.address, rules.address)]);
    },
    async recordSuccess(attempt) {
      const { pair } = keysOf(attempt);
      await Promise.all([counters.reset(pair.failures), counters.reset(pair.blocked)]);
    },
  };
}
