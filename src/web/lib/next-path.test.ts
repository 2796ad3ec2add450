import { describe, expect, it } from "vitest";
import { safeNextPath, withNext } from "./next-path";

describe("next path after login", () => {
  it("follows paths of this site only", () => {
    expect(safeNextPath("/invite?token=abc")).toBe("/invite?token=abc");
    expect(safeNextPath("//evil.example/x")).toBeNull();
    expect(safeNextPath("/\\evil.example")).toBeNull();
    expect(safeNextPath("https://evil.example")).toBeNull();
    expect(safeNextPath(null)).toBeNull();
  });

  it("keeps the whole next path, query included, through a link", () => {
    const link = withNext("/login", "/invite?token=a+b&x=1");
    expect(new URLSearchParams(link.split("?").slice(1).join("?")).get("next")).toBe("/invite?token=a+b&x=1");
    expect(withNext("/login", null)).toBe("/login");
  });
});
