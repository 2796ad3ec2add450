import { describe, expect, it } from "vitest";
import { assistantInputSchema } from "./assistants.ts";
import { callFiltersSchema } from "./call-records.ts";
import { isUuid } from "./ids.ts";

// Any value a PostgreSQL uuid column can hold, in canonical form: not only version 4.
const HOLDABLE = ["00000000-0000-0000-0000-000000000000", "0192f0c1-7a3b-7c2d-9e4f-0123456789ab", "A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11", "12345678-1234-1234-1234-123456789abc"];
const NOT_IDS = ["", "42", "not-a-uuid", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc999c0b4ef8bb6d6bb9bd380a11", "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", "g0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", " a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"];

describe("isUuid", () => {
  it("accepts every canonical uuid a database column can hold, whatever its version", () => {
    for (const id of HOLDABLE) expect(isUuid(id), id).toBe(true);
  });

  it("refuses anything else, so a malformed id never reaches a uuid cast", () => {
    for (const id of NOT_IDS) expect(isUuid(id), id).toBe(false);
  });

  it("is the same test the request schemas apply (tool ids of an assistant, the calls filter)", () => {
    for (const id of [...HOLDABLE, ...NOT_IDS]) {
      const tools = assistantInputSchema.shape.tool_ids.safeParse([id]).success;
      const filter = callFiltersSchema.safeParse({ assistant_id: id }).success;
      // An empty filter means "no filter", so only the tool-id list sees "" as a bad id.
      expect(tools, id).toBe(isUuid(id));
      if (id !== "") expect(filter, id).toBe(isUuid(id));
    }
  });
});
