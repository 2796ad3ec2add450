import { Redis } from "ioredis";
import { ttlOf, type CounterState, type CounterStore } from "./counter-store.ts";

// INCR and the expiry of a new window in one atomic step: a crash between two commands could
// otherwise leave a counter that never expires.
const INCREMENT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}`;

const PREFIX = "switchboard:";

/** The shared store when REDIS_URL is set. Keys live under `switchboard:` and expire by themselves. */
export function createRedisCounterStore(url: string): CounterStore {
  // Fail a command rather than queue it forever while Redis is away: a request should get an
  // answer (the rate limiter lets it through, a token redemption refuses) instead of hanging.
  const redis = new Redis(url, { keyPrefix: PREFIX, maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  redis.on("error", () => {
    // Reported through the failing commands; without a listener ioredis would log every retry.
  });

  return {
    kind: "redis",

    async increment(key, ttlMs) {
      const [count, ttl] = (await redis.eval(INCREMENT, 1, key, String(ttlOf(ttlMs)))) as [number, number];
      return { count, resetInMs: ttl };
    },

    async get(key) {
      const [[, value], [, ttl]] = (await redis.multi().get(key).pttl(key).exec()) as [[unknown, string | null], [unknown, number]];
      if (value === null || ttl < 0) return null;
      return { count: Number(value), resetInMs: ttl } satisfies CounterState;
    },

    async reset(key) {
      await redis.del(key);
    },

    async consumeOnce(key, ttlMs) {
      return (await redis.set(key, "1", "PX", ttlOf(ttlMs), "NX")) === "OK";
    },

    async prune() {
      return 0;
    },

    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
