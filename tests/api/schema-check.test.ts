import { expect, it } from "vitest";
import { schemaProblems, type ApiDocument } from "./schema-check.ts";

const doc = {
  paths: {},
  components: {
    responses: {},
    schemas: {
      Thing: { type: "object", required: ["id", "kind"], additionalProperties: false, properties: { id: { type: "string", minLength: 2 }, kind: { enum: ["a", "b"] }, at: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] } } },
    },
  },
} as ApiDocument;
const thing = { $ref: "#/components/schemas/Thing" };

it("holds a value to a schema of the document, naming each place it breaks", () => {
  expect(schemaProblems(doc, thing, { id: "ab", kind: "a", at: null })).toEqual([]);
  expect(schemaProblems(doc, thing, { id: "ab", kind: "a", at: "2026-11-28T10:00:00.000Z" })).toEqual([]);
  expect(new Set(schemaProblems(doc, thing, { id: "a", kind: "c", extra: 1 }))).toEqual(new Set([
    '$: unexpected extra (got {"id":"a","kind":"c","extra":1})',
    '$.id: shorter than 2 (got "a")',
    '$.kind: not one of ["a","b"] (got "c")',
  ]));
  expect(schemaProblems(doc, thing, { kind: "a", at: "yesterday" })).toHaveLength(2);
  expect(schemaProblems(doc, { type: "array", items: thing }, "no")).toEqual(['$: not "array" (got "no")']);
});
