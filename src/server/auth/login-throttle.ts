/**
 * Counts failed logins per e-mail and per client address in a sliding window. In memory: a restart
 * forgets the counts, and several instances count separately — acceptable for a brake on guessing.
 */
export interface LoginThrottle {
  /** Milliseconds until another attempt is allowed, or 0. */
  retryAfterMs(attempt: { email: string; ip: string }, now?: number): number;
  recordFailure(attempt: { email: string; ip: string }, now?: number): void;
  reset(email: string): void;
}

/** One account tolerates few guesses; one address, shared by an office behind NAT, a few more. */
export function createLoginThrottle({ perEmail = 5, perIp = 20, windowMs = 15 * 60_000 } = {}): LoginThrottle {
  const failures = new Map<string, number[]>();
  const recent = (key: string, now: number) => (failures.get(key) ?? []).filter((t) => now - t < windowMs);
  const limits = ({ email, ip }: { email: string; ip: string }) =>
    [
      [`email:${email.toLowerCase()}`, perEmail],
      [`ip:${ip}`, perIp],
    ] as const;
  return {
    retryAfterMs(attempt, now = Date.now()) {
      let wait = 0;
      for (const [key, max] of limits(attempt)) {
        const times = recent(key, now);
        if (times.length >= max) wait = Math.max(wait, times[times.length - max]! + windowMs - now);
      }
      return wait;
    },
    recordFailure(attempt, now = Date.now()) {
      for (const [key] of limits(attempt)) failures.set(key, [...recent(key, now), now]);
      if (failures.size > 10_000) {
        for (const [key] of failures) if (recent(key, now).length === 0) failures.delete(key);
      }
    },
    reset(email) {
      failures.delete(`email:${email.toLowerCase()}`);
    },
  };
}
