import { describe, expect, it } from "vitest";
import { parseRange } from "./range.ts";

describe("parseRange", () => {
  const size = 1000;

  it("serves the whole object without a usable Range header", () => {
    for (const header of [undefined, "", "bytes=", "bytes=-", "items=0-10", "bytes=0-1,5-6", "bytes=abc", "bytes=10-5"]) {
      expect(parseRange(header, size), String(header)).toEqual({ kind: "full" });
    }
  });

  it("reads closed, open and suffix ranges", () => {
    expect(parseRange("bytes=0-99", size)).toEqual({ kind: "partial", start: 0, end: 99 });
    expect(parseRange("bytes=900-", size)).toEqual({ kind: "partial", start: 900, end: 999 });
    expect(parseRange("bytes=-100", size)).toEqual({ kind: "partial", start: 900, end: 999 });
    expect(parseRange("BYTES=5-5", size)).toEqual({ kind: "partial", start: 5, end: 5 });
  });

  it("clamps ranges running past the end", () => {
    expect(parseRange("bytes=990-5000", size)).toEqual({ kind: "partial", start: 990, end: 999 });
    expect(parseRange("bytes=-5000", size)).toEqual({ kind: "partial", start: 0, end: 999 });
  });

  it("reports unsatisfiable ranges", () => {
    expect(parseRange("bytes=1000-", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=5000-6000", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-0", size)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=0-", 0)).toEqual({ kind: "unsatisfiable" });
    expect(parseRange("bytes=-10", 0)).toEqual({ kind: "unsatisfiable" });
  });
});
