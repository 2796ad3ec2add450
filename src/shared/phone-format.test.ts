import { describe, expect, it } from "vitest";
import { countryName, formatPhoneNumber, toE164 } from "./phone-format.ts";

describe("phone numbers as people read and write them", () => {
  it("names countries and groups numbers the country's way, leaving unknown plans alone", () => {
    expect(countryName("GB")).toBe("United Kingdom");
    expect(countryName("ZZ")).toBe("ZZ");
    expect(formatPhoneNumber("+447700900112")).toBe("+44 7700 900112");
    expect(formatPhoneNumber("+442071234567")).toBe("+44 20 7123 4567");
    expect(formatPhoneNumber("+14155550100")).toBe("+1 415 555 0100");
    expect(formatPhoneNumber("+33612345678")).toBe("+33 6 12 34 56 78");
    expect(formatPhoneNumber("+61412345678")).toBe("+61 412 345 678");
    expect(formatPhoneNumber("+3531234567")).toBe("+3531234567");
    expect(formatPhoneNumber("+15550111")).toBe("+15550111");
  });

  it("makes national numbers E.164 with a default country, and refuses them without one", () => {
    expect(toE164("07700 900112", "GB")).toBe("+447700900112");
    expect(toE164("07700 900112")).toBeNull();
    expect(toE164("(415) 555-0100", "US")).toBe("+14155550100");
    expect(toE164("1 415 555 0100", "CA")).toBe("+14155550100");
    expect(toE164("0044 7700 900112")).toBe("+447700900112");
    expect(toE164("+33 6 12 34 56 78", "GB")).toBe("+33612345678");
    expect(toE164("call me", "GB")).toBeNull();
    expect(toE164("07700 900112", "US")).toBeNull();
    expect(toE164("7700 900112", "GB")).toBeNull();
  });
});
