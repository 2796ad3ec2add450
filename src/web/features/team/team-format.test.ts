import { describe, expect, it } from "vitest";
import { assignableRoles, mayManage } from "./team-format";

describe("team roles in the web app", () => {
  it("lets only owners hand out the owner role", () => {
    expect(assignableRoles("owner")).toContain("owner");
    expect(assignableRoles("admin")).toEqual(["admin", "builder", "supervisor", "viewer"]);
  });

  it("lets admins manage everyone but owners, and owners everyone", () => {
    expect(mayManage("admin", "builder")).toBe(true);
    expect(mayManage("admin", "admin")).toBe(true);
    expect(mayManage("admin", "owner")).toBe(false);
    expect(mayManage("owner", "owner")).toBe(true);
    expect(mayManage("builder", "viewer")).toBe(false);
  });
});
