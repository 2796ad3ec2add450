import { describe, expect, it } from "vitest";
import { analysisSettingsSchema, DEFAULT_ANALYSIS_MODEL, MAX_ANALYSIS_FIELDS } from "./analysis.ts";

const messages = (input: unknown) => {
  const parsed = analysisSettingsSchema.safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join("."), i.message]);
};
const field = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "string", description: "", ...extra });

describe("an assistant's analysis settings", () => {
  it("default to a summary, pass/fail and the default model", () => {
    expect(analysisSettingsSchema.parse({})).toEqual({
      summary: { enabled: true, prompt: null },
      fields: [],
      success: { rubric: null, scale: "pass_fail" },
      model: DEFAULT_ANALYSIS_MODEL,
    });
  });

  it("refuse badly named and duplicate fields, an enum without options and more than 25 fields, each where it is", () => {
    expect(messages({ fields: [field("Order ID")] })).toEqual([
      ["fields.0.name", "Field names must be snake_case: lower-case letters, digits and underscores, starting with a letter (e.g. order_id)"],
    ]);
    expect(messages({ fields: [field("order_id"), field("order_id")] })).toEqual([["fields.1.name", 'Field names must be different: "order_id" is used twice']]);
    expect(messages({ fields: [field("reason", { type: "enum" })] })).toEqual([["fields.0.options", 'A "one of a list" field needs at least one option']]);
    const many = Array.from({ length: MAX_ANALYSIS_FIELDS + 1 }, (_, i) => field(`f${i}`));
    expect(messages({ fields: many })).toEqual([["fields", "An assistant can extract at most 25 fields"]]);
  });

  it("need two categories to score by categories, and a known text model", () => {
    expect(messages({ success: { scale: "categories", categories: ["resolved"] } })).toEqual([["success.categories", "Scoring by categories needs at least two categories"]]);
    expect(messages({ model: "gpt-realtime" })[0]?.[0]).toBe("model");
  });

  it("keep options only on list fields", () => {
    const parsed = analysisSettingsSchema.parse({ fields: [field("note", { options: ["x"] }), field("reason", { type: "enum", options: ["a", "b"] })] });
    expect(parsed.fields).toEqual([
      { name: "note", type: "string", description: "", required: false },
      { name: "reason", type: "enum", description: "", required: false, options: ["a", "b"] },
    ]);
  });
});
