import { describe, expect, it } from "vitest";
import {
  apiKeyView,
  toolExecutionRequestSchema,
  toolFormSchema,
  toolInputSchema,
  toolParametersSchema,
  toolUpdateSchema,
} from "./tools.ts";

const valid = {
  name: "Weather",
  type: "API",
  http_method: "GET",
  parameter_format: "standard",
  end_point_url: "https://api.example.com/weather",
};

const messages = (result: { success: boolean; error?: { issues: { message: string }[] } }) =>
  result.error?.issues.map((i) => i.message) ?? [];

describe("toolInputSchema", () => {
  it("accepts the required fields alone and fills the JSON fields with empty values", () => {
    expect(toolInputSchema.parse(valid)).toEqual({
      ...valid,
      http_headers: {},
      parameters: { type: "object", properties: {}, required: [] },
      request_body: {},
    });
  });

  it.each([
    [{ name: undefined }, "Name is required"],
    [{ name: "   " }, "Name is required"],
    [{ end_point_url: "not a url" }, "Must be a valid URL"],
    [{ end_point_url: "ftp://example.com" }, "Must be a valid URL"],
    [{ end_point_url: undefined }, "Must be a valid URL"],
    [{ http_method: "PATCH" }, "HTTP method is required"],
    [{ parameter_format: undefined }, "Parameter format is required"],
    [{ type: "SOAP" }, "Type is required"],
  ])("%j → %s", (change, message) => {
    expect(messages(toolInputSchema.safeParse({ ...valid, ...change }))).toEqual([message]);
  });

  it("refuses header values that could inject another header", () => {
    const result = toolInputSchema.safeParse({ ...valid, http_headers: { "X-A": "1\r\nX-B: 2" } });
    expect(messages(result)).toEqual(["Header values must not contain line breaks"]);
  });
});

describe("toolParametersSchema", () => {
  it("keeps extra JSON-schema keywords the AI provider understands", () => {
    const parameters = {
      type: "object",
      properties: { unit: { type: "string", description: "Unit", enum: ["C", "F"] } },
      required: ["unit"],
      additionalProperties: false,
    };
    expect(toolParametersSchema.parse(parameters)).toEqual(parameters);
  });

  it("refuses a required parameter that has no property", () => {
    const result = toolParametersSchema.safeParse({ properties: {}, required: ["city"] });
    expect(messages(result)).toEqual(["Every required parameter must be listed in properties"]);
  });
});

describe("toolFormSchema (JSON fields typed as text)", () => {
  const form = { ...valid, http_headers: "", parameters: "", request_body: "" };

  it("turns blank JSON fields into empty values and gives a ToolInput", () => {
    const parsed = toolFormSchema.parse({ ...form, http_headers: '{ "X-Tenant": "acme" }' });
    expect(toolInputSchema.parse(parsed)).toEqual(parsed);
    expect(parsed.http_headers).toEqual({ "X-Tenant": "acme" });
    expect(parsed.request_body).toEqual({});
  });

  it("shows invalid JSON as an error on the field instead of dropping it", () => {
    const result = toolFormSchema.safeParse({ ...form, request_body: "{ nope" });
    expect(result.error?.issues).toEqual([expect.objectContaining({ path: ["request_body"], message: "Request body must be valid JSON" })]);
  });

  it("reports a wrong shape on the field, with where it is", () => {
    const result = toolFormSchema.safeParse({ ...form, parameters: '{ "properties": { "city": { "type": "text" } } }' });
    expect(result.error?.issues[0]?.path).toEqual(["parameters"]);
    expect(result.error?.issues[0]?.message).toMatch(/^properties\.city\.type: Each parameter needs a type/);
  });

  it("refuses a JSON array where an object is expected", () => {
    expect(messages(toolFormSchema.safeParse({ ...form, http_headers: "[]" }))).toEqual(["Headers must be a JSON object"]);
  });

  it("names the rule a header name broke, not the shape of the whole field", () => {
    expect(messages(toolFormSchema.safeParse({ ...form, http_headers: '{ "Bad Header": "x" }' }))).toEqual([
      "Bad Header: Header names may only contain letters, digits and !#$%&'*+-.^_`|~",
    ]);
  });

  it("takes any subset of the fields on update and keeps what is left out", () => {
    expect(toolUpdateSchema.parse({ name: " Renamed " })).toEqual({ name: "Renamed" });
    expect(toolUpdateSchema.safeParse({ name: "" }).error?.issues[0]?.message).toBe("Name is required");
    expect(toolUpdateSchema.parse({ api_key: null })).toEqual({ api_key: null });
  });
});

describe("apiKeyView", () => {
  it.each([
    [null, { api_key_set: false, api_key_hint: null }],
    ["", { api_key_set: false, api_key_hint: null }],
    ["short", { api_key_set: true, api_key_hint: "••••" }],
    ["sk-live-0123456789abcd", { api_key_set: true, api_key_hint: "••••abcd" }],
  ])("%s → %j", (key, view) => expect(apiKeyView(key)).toEqual(view));
});

describe("toolExecutionRequestSchema", () => {
  it("defaults to no parameters", () => {
    expect(toolExecutionRequestSchema.parse({})).toEqual({ parameters: {} });
  });
});
