import { counterKey, type CounterStore } from "../shared-state/index.ts";

/**
 * Brakes the endpoints that send e-mail (password reset, confirmation resend), so the server
 * cannot be used to flood someone's inbox or burn the SMTP account's reputation. Every request
 * counts, whether or not the address has an account, so the answer never tells which do.
 * Fixed windows in the shared CounterStore: the same limit holds on every instance.
 */
export interface MailThrottle {
  /** Counts one request; the milliseconds until another is allowed, or 0 when this one may go. */
  take(request: { email: string; ip: string }): Promise<number>;
}

export const MAIL_THROTTLE_DEFAULTS = {
  /** E-mails one address may be sent in a window. */
  perAddress: 3,
  /** Requests one client address may make in a window (an office behind NAT shares one). */
  perClient: 10,
  windowMs: 15 * 60_000,
} as const;

export function createMailThrottle(counters: CounterStore, options: Partial<typeof MAIL_THROTTLE_DEFAULTS> = {}): MailThrottle {
  const { perAddress, perClient, windowMs } = { ...MAIL_THROTTLE_DEFAULTS, ...options };
  return {
    async take({ email, ip }) {
      const [address, client] = await Promise.all([
        counters.increment(counterKey.mail("address", encodeURIComponent(email.trim().toLowerCase())), windowMs),
        counters.increment(counterKey.mail("client", ip), windowMs),
      ]);
      const waits = [address.count > perAddress ? address.resetInMs : 0, client.count > perClient ? client.resetInMs : 0];
      return Math.max(...waits);
    },
  };
}
