import type { Database } from "../db/client.ts";
import type { CounterStore } from "./counter-store.ts";
import { createPgCounterStore } from "./pg-counter-store.ts";
import { createRedisCounterStore } from "./redis-counter-store.ts";

export { counterKey, type CounterState, type CounterStore } from "./counter-store.ts";
export { rateLimitStoreClass } from "./rate-limit-store.ts";

/** Redis when REDIS_URL is set, otherwise the database every instance already shares. */
export function createCounterStore(config: { redisUrl: string | undefined }, database: Database): CounterStore {
  return config.redisUrl ? createRedisCounterStore(config.redisUrl) : createPgCounterStore(database);
}
