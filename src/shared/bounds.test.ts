import { describe, expect, it } from "vitest";
import { DATE_BOUNDS_MESSAGE, INT32_MAX, int32Text, isoDateTime, positiveInt32 } from "./bounds.ts";

describe("bounds", () => {
  it("keeps whole numbers to what an integer column holds, with one message for every way one is wrong", () => {
    const version = positiveInt32("version must be a whole number from 1");
    expect(version.parse(INT32_MAX)).toBe(INT32_MAX);
    for (const bad of [INT32_MAX + 1, 9007199254740990, 0, -1, 1.5, "2"]) {
      expect(version.safeParse(bad).error?.issues[0]?.message).toBe("version must be a whole number from 1");
    }
    const cursor = int32Text("cursor is not one this list gave");
    expect(cursor.parse("0")).toBe(0);
    expect(cursor.parse(String(INT32_MAX))).toBe(INT32_MAX);
    for (const bad of ["2147483648", "9007199254740990", "-1", "x", "1.5"]) expect(cursor.safeParse(bad).success).toBe(false);
  });

  it("keeps dates within the years 1970 to 2999", () => {
    const from = isoDateTime("from must be an ISO date-time");
    expect(from.parse("2026-11-27T10:00:00+01:00")).toBe("2026-11-27T10:00:00+01:00");
    expect(from.safeParse("2999-12-31T23:59:59Z").success).toBe(true);
    for (const far of ["3000-01-01T00:00:00Z", "9999-12-31T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z"]) {
      expect(from.safeParse(far).error?.issues[0]?.message).toBe(DATE_BOUNDS_MESSAGE);
    }
    expect(from.safeParse("2026-13-45T99:99:99Z").error?.issues[0]?.message).toBe("from must be an ISO date-time");
  });
});
