/**
 * Draining: on SIGTERM an instance stops taking new calls (the health route turns 503 so the
 * load balancer stops sending it work, and a browser call start answers a retryable 503), lets
 * the calls it carries finish for up to DRAIN_TIMEOUT_MS, then closes.
 */
import { AT_CAPACITY_MESSAGE } from "../../shared/calls.ts";
import { AppError } from "../errors.ts";

export const DRAINING_MESSAGE = "This server is restarting. Please try again in a moment.";
/** Seconds a client (or a load balancer) should wait before retrying on another instance. */
export const DRAIN_RETRY_AFTER_S = 2;

export class Drain {
  private draining = false;

  get isDraining(): boolean {
    return this.draining;
  }

  begin(): void {
    this.draining = true;
  }
}

/** The retryable refusal of new work while draining (send `retry-after` with it). */
export function drainingError(): AppError {
  return new AppError(503, "draining", DRAINING_MESSAGE);
}

/** This instance carries MAX_CALLS calls: retryable, like draining (a load balancer may pick another). */
export function atCapacityError(): AppError {
  return new AppError(503, "at_capacity", AT_CAPACITY_MESSAGE);
}

export interface Drainable {
  readonly size: number;
  idle(): Promise<void>;
}

/** Several kinds of calls drained together (live sessions, and SIP calls bridged by a transfer). */
export function drainableOf(...parts: Drainable[]): Drainable {
  return {
    get size() {
      return parts.reduce((n, p) => n + p.size, 0);
    },
    async idle() {
      while (parts.some((p) => p.size > 0)) await Promise.all(parts.map((p) => p.idle()));
    },
  };
}

/** Stops new calls and waits until the live ones end, at most `timeoutMs`; true when all ended. */
export async function drainCalls(drain: Drain, liveCalls: Drainable, timeoutMs: number): Promise<boolean> {
  drain.begin();
  if (liveCalls.size === 0) return true;
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
  try {
    return await Promise.race([liveCalls.idle().then(() => true as const), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
