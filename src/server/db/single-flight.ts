/**
 * Reads of the same thing asked for while one is already under way share it. A burst of phone
 * calls arriving together (fifty callers ringing one number) then reads the number, the
 * account's credentials and the assistant once rather than fifty times; the embedded database
 * runs one statement at a time, so fifty alike would queue behind each other.
 *
 * Nothing is kept once the read settles: no cache, nothing to invalidate. A read asked for
 * while another is under way gets that one's answer, which is as fresh as the moment it began.
 * Callers share the answer: they must not change it.
 */
export function singleFlight<A extends unknown[], V>(read: (...args: A) => Promise<V>, keyOf: (...args: A) => string): (...args: A) => Promise<V> {
  const underWay = new Map<string, Promise<V>>();
  return (...args: A) => {
    const key = keyOf(...args);
    const shared = underWay.get(key);
    if (shared) return shared;
    const started = read(...args).finally(() => underWay.delete(key));
    underWay.set(key, started);
    return started;
  };
}
