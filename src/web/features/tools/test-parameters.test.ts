import { describe, expect, it } from "vitest";
import type { Tool } from "@shared/tools";
import { buildTestParameters, convertValue, placeholderFor, testParametersOf } from "./test-parameters";

/** Only the schema matters to the Test panel; the rest of the tool is never read. */
const toolWith = (parameters: Record<string, unknown>) => ({ parameters }) as unknown as Tool;

describe("the Test panel's parameters", () => {
  it("reads the schema's properties, required ones first, then in schema order", () => {
    const tool = toolWith({
      type: "object",
      properties: {
        note: { type: "string", description: "  " },
        order_id: { type: "integer", description: "The order number" },
        express: { type: "boolean" },
        city: {},
      },
      required: ["express", "order_id"],
    });
    expect(testParametersOf(tool)).toEqual([
      { name: "order_id", type: "integer", description: "The order number", required: true },
      { name: "express", type: "boolean", description: undefined, required: true },
      { name: "note", type: "string", description: undefined, required: false },
      { name: "city", type: "string", description: undefined, required: false },
    ]);
  });

  it("has none when the schema declares no object of properties", () => {
    expect(testParametersOf(toolWith({ type: "object" }))).toEqual([]);
    expect(testParametersOf(toolWith({ type: "object", properties: ["a"] }))).toEqual([]);
  });

  it("shows a placeholder that fits each type", () => {
    expect(["number", "integer", "boolean", "object", "array", "string"].map(placeholderFor)).toEqual([
      "e.g. 42.5",
      "e.g. 42",
      "true or false",
      '{"key": "value"}',
      '["a", "b"]',
      "Enter a value",
    ]);
  });
});

describe("converting what was typed", () => {
  it.each([
    ["number", " 42.5 ", { ok: true, value: 42.5 }],
    ["number", "forty", { ok: false, error: "Must be a number" }],
    ["integer", "7", { ok: true, value: 7 }],
    ["integer", "7.5", { ok: false, error: "Must be a whole number" }],
    ["boolean", "TRUE", { ok: true, value: true }],
    ["boolean", "no", { ok: false, error: "Must be true or false" }],
    ["object", '{"a": 1}', { ok: true, value: { a: 1 } }],
    ["object", "[1]", { ok: false, error: "Must be a JSON object" }],
    ["object", "null", { ok: false, error: "Must be a JSON object" }],
    ["array", "[1, 2]", { ok: true, value: [1, 2] }],
    ["array", "{}", { ok: false, error: "Must be a JSON array" }],
    ["array", "[1,", { ok: false, error: "Must be valid JSON" }],
    ["string", "  spaced  ", { ok: true, value: "  spaced  " }],
  ])("%s %j", (type, text, expected) => {
    expect(convertValue(type, text)).toEqual(expected);
  });

  it("builds the execution's parameters: blank optional ones left out, blank required and bad values as errors by name", () => {
    const params = [
      { name: "order_id", type: "integer", description: undefined, required: true },
      { name: "express", type: "boolean", description: undefined, required: true },
      { name: "note", type: "string", description: undefined, required: false },
      { name: "qty", type: "number", description: undefined, required: false },
    ];
    expect(buildTestParameters(params, { order_id: "42", express: "false", note: "" })).toEqual({ parameters: { order_id: 42, express: false }, errors: {} });
    expect(buildTestParameters(params, { order_id: " ", qty: "many" })).toEqual({
      parameters: {},
      errors: { order_id: "order_id is required", express: "express is required", qty: "Must be a number" },
    });
  });
});
