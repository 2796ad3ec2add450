import { describe, expect, it } from "vitest";
import { CAMPAIGN_TEXTS } from "@shared/campaigns";
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
});
