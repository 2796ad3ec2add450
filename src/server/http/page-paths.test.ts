import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isPagePath } from "../../shared/page-paths.ts";

describe("the server's list of page paths", () => {
  it("holds every route of the router, so none of them answers 404", () => {
    const router = readFileSync(join(import.meta.dirname, "../../web/app/router.tsx"), "utf8");
    const paths = [...router.matchAll(/<Route path="([^"*]+)"/g)].map((m) => m[1]!.replace(/:[a-z]+/g, "example"));
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !isPagePath(p))).toEqual([]);
    expect(isPagePath("/no/such/page")).toBe(false);
    expect(isPagePath("/calls/")).toBe(true);
  });
});
