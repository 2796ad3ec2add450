/**
 * @fastify/rate-limit's store contract (`new Store(globalOptions)`, `incr`, `read`, `child`)
 * on top of a CounterStore, so every route limit counts across instances.
 */
import { counterKey, type CounterStore } from "./counter-store.ts";

import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from "@fastify/rate-limit";

type Callback = (err: Error | null, result?: { current: number; ttl: number }) => void;
interface RouteInfo {
  method?: string | string[];
  url?: string;
}

/** The class to pass as `store` when registering @fastify/rate-limit. */
export function rateLimitStoreClass(counters: CounterStore): FastifyRateLimitStoreCtor {
  class SharedRateLimitStore implements FastifyRateLimitStore {
    // One counter per route and client, as the built-in stores do.
    constructor(
      _options?: unknown,
      private readonly route = "global",
    ) {}

    incr(key: string, cb: Callback, timeWindow: number): void {
      counters.increment(counterKey.rateLimit(this.route, key), timeWindow).then(
        (state) => cb(null, { current: state.count, ttl: state.resetInMs }),
        (err: Error) => cb(err),
      );
    }

    read(key: string, cb: Callback): void {
      counters.get(counterKey.rateLimit(this.route, key)).then(
        (state) => cb(null, { current: state?.count ?? 0, ttl: state?.resetInMs ?? 0 }),
        (err: Error) => cb(err),
      );
    }

    child(routeOptions: object): FastifyRateLimitStore {
      // The plugin passes the route's merged options with `routeInfo` (its method and url).
      const info = (routeOptions as { routeInfo?: RouteInfo }).routeInfo ?? {};
      const method = Array.isArray(info.method) ? info.method.join(",") : (info.method ?? "");
      return new SharedRateLimitStore(undefined, `${method}${info.url ?? ""}`);
    }
  }
  return SharedRateLimitStore;
}
