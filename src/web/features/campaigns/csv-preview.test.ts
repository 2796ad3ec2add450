import { describe, expect, it } from "vitest";
import { CAMPAIGN_TEXTS } from "@shared/campaigns";
import { DIAL_SAFETY_TEXTS } from "@shared/dial-safety";
import { parseCsv, previewCsv } from "./csv-preview";

describe("the contacts CSV preview", () => {
  it("reads quoted fields with commas, quotes and line breaks, and skips blank lines", () => {
    expect(parseCsv('\ufeffphone,note\r\n+441,"a, ""b""\nc"\n\n+442,x')).toEqual([
      ["phone", "note"],
      ["+441", 'a, "b"\nc'],
      ["+442", "x"],
    ]);
  });

  it("numbers rows from 1 after the header and finds what the server would refuse, in its words", () => {
    const p = previewCsv("phone,first_name,timezone\n+442071234567,Ann,\nnope,Bob,\n+44 20 7123 4567,Ann,\n+15551234567,Cy,Mars/Base\n");
    expect(p.total).toBe(4);
    expect(p.variables).toEqual(["first_name"]);
    expect(p.invalid).toEqual([
      { row: 2, phone: "nope", reason: CAMPAIGN_TEXTS.invalidPhone },
      { row: 3, phone: "+44 20 7123 4567", reason: CAMPAIGN_TEXTS.duplicate },
      { row: 4, phone: "+15551234567", reason: CAMPAIGN_TEXTS.badTimeZone },
    ]);
    expect(p.rows[0]).toEqual({ phone: "+442071234567", first_name: "Ann", timezone: "" });
  });

  it("says when the file has no phone column or no rows", () => {
    expect(previewCsv("name\nAnn").error).toBe(CAMPAIGN_TEXTS.phoneColumn);
    expect(previewCsv("phone\n").error).toBe(CAMPAIGN_TEXTS.noContacts);
  });

  it("leaves out premium-rate, satellite and the organisation's own numbers as the server does, unless allowed", () => {
    const csv = "phone\n+19005550123\n+881612345678\n+15550100\n+442071234567\n";
    const p = previewCsv(csv, { ownNumbers: ["+15550100"], allowed: [] });
    expect(p.invalid).toEqual([
      { row: 1, phone: "+19005550123", reason: DIAL_SAFETY_TEXTS.premiumRate("North American 900 numbers") },
      { row: 2, phone: "+881612345678", reason: DIAL_SAFETY_TEXTS.satellite("Global Mobile Satellite System, +881") },
      { row: 3, phone: "+15550100", reason: DIAL_SAFETY_TEXTS.ownNumber },
    ]);
    expect(previewCsv(csv, { ownNumbers: ["+15550100"], allowed: ["+1900", "+15550100"] }).invalid.map((i) => i.row)).toEqual([2]);
  });

  it("refuses what the server's reader refuses: a stray quote, an unclosed one, a NUL, more than 100 variable columns", () => {
    expect(previewCsv('phone,name\n+442071234567,ok\n+442071234568,Ann "the" Smith\n').error).toBe(CAMPAIGN_TEXTS.unreadable(3, CAMPAIGN_TEXTS.quoteInField));
    expect(previewCsv('phone,name\n+442071234567,"Ann\n').error).toBe(CAMPAIGN_TEXTS.unreadable(2, CAMPAIGN_TEXTS.unclosedQuote));
    expect(previewCsv("phone,name\n+442071234567,A\u0000n\n").error).toBe(CAMPAIGN_TEXTS.nulCharacter(1));
    const wide = (n: number) => `phone,${Array.from({ length: n }, (_, i) => `v${i}`).join(",")}\n+442071234567${",x".repeat(n)}\n`;
    expect(previewCsv(wide(100)).error).toBeNull();
    expect(previewCsv(wide(101)).error).toBe(CAMPAIGN_TEXTS.tooManyVariables(101));
  });
});
