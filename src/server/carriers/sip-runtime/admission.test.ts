import { expect, it } from "vitest";
import { addressAllowed, RefusalLimiter } from "./admission.ts";

it("matches a trunk's addresses and CIDR ranges, IPv4 and IPv6, and never an entry that is none", () => {
  expect(addressAllowed("203.0.113.7", ["198.51.100.0/24", "203.0.113.0/28"])).toBe(true);
  expect(addressAllowed("203.0.113.70", ["203.0.113.0/28"])).toBe(false);
  expect(addressAllowed("2001:db8::5", ["2001:db8::/32"])).toBe(true);
  expect(addressAllowed("10.0.0.1", ["10.0.0.1"])).toBe(true);
  expect(addressAllowed("10.0.0.1", ["not-an-address", "10.0.0.0/99", ""])).toBe(false);
  expect(addressAllowed("nonsense", ["0.0.0.0/0"])).toBe(false);
});

it("refuses a source after its refusals reach the limit within the window, until the window ends; admission clears it", () => {
  let now = 0;
  const limiter = new RefusalLimiter(3, 10_000, 100, () => now);
  for (let i = 0; i < 3; i += 1) {
    expect(limiter.blocked("198.51.100.9")).toBe(false);
    limiter.strike("198.51.100.9");
  }
  expect(limiter.blocked("198.51.100.9")).toBe(true);
  expect(limiter.blocked("198.51.100.10")).toBe(false);
  now = 10_000;
  expect(limiter.blocked("198.51.100.9")).toBe(false);
  limiter.strike("198.51.100.9");
  limiter.clear("198.51.100.9");
  expect(limiter.blocked("198.51.100.9")).toBe(false);
});

it("keeps at most its bound of sources, forgetting the oldest", () => {
  const limiter = new RefusalLimiter(1, 10_000, 2, () => 0);
  for (const source of ["a", "b", "c"]) limiter.strike(source);
  expect(limiter.blocked("a")).toBe(false);
  expect(limiter.blocked("b")).toBe(true);
  expect(limiter.blocked("c")).toBe(true);
});
