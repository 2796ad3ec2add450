import { z } from "zod";
import { httpUrlFormat, NOT_BLANK } from "./wire-formats.js";
import { pageOf } from "./pages.js";
import { EXAMPLE_PHONES, withExamples } from "./examples.js";

// ── Enumerations (spec §3, §9) ─────────────────────────────────────────────────────────────

/** Spec §3/§9: API or connector. The spec's form only coloured a "Function" type; ADR 022 drops it. */
export const TOOL_TYPES = ["API", "connector"] as const;
export const toolTypeSchema = z.enum(TOOL_TYPES, { error: "Type is required" });
export type ToolType = z.infer<typeof toolTypeSchema>;

export const HTTP_METHODS = ["GET", "POST", "PUT", "DELETE"] as const;
export const httpMethodSchema = z.enum(HTTP_METHODS, { error: "HTTP method is required" });
export type HttpMethod = z.infer<typeof httpMethodSchema>;

export const PARAMETER_FORMATS = ["standard", "database-query"] as const;
export const parameterFormatSchema = z.enum(PARAMETER_FORMATS, { error: "Parameter format is required" });
export type ParameterFormat = z.infer<typeof parameterFormatSchema>;

/**
 * PostgREST filter prefixes a database-query value may start with (`age=gt.30`); a value with
 * none of them is sent as `eq.`. The test panel's help box and the engine both read this list.
 */
export const DATABASE_QUERY_OPERATORS = ["eq", "gt", "lt", "gte", "lte", "neq", "like"] as const;
export type DatabaseQueryOperator = (typeof DATABASE_QUERY_OPERATORS)[number];
export const DEFAULT_DATABASE_QUERY_OPERATOR: DatabaseQueryOperator = "eq";

export const JSON_SCHEMA_TYPES = ["string", "number", "integer", "boolean", "array", "object"] as const;

// ── User-facing texts (spec §5, §8) ────────────────────────────────────────────────────────

export const TOOL_MESSAGES = {
  nameRequired: "Name is required",
  invalidUrl: "Must be a valid URL",
  missingRequiredFields: "Missing required fields",
  created: "Tool created successfully!",
  createFailed: "Failed to create tool",
  // Edit and delete work here (design §1); the spec has no texts for them, so these follow its style.
  updated: "Tool updated successfully!",
  updateFailed: "Failed to update tool",
  deleted: "Tool deleted successfully!",
  deleteFailed: "Failed to delete tool",
  testSucceeded: "Tool test executed successfully",
  testCompletedWithStatus: (status: number) => `Tool test completed with status ${status}`,
  testFailed: "Failed to execute tool test",
  executionError: "An error occurred during tool execution",
  unexpectedError: "An unexpected error occurred",
} as const;

// ── JSON fields ────────────────────────────────────────────────────────────────────────────

// RFC 9110 token: anything else makes Node refuse the header, or worse, lets a value smuggle a
// second header in; refusing it here shows the error in the form instead of at test time.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const HEADER_VALUE = /^[^\r\n\0]*$/;

export const toolHeadersSchema = z.record(
  z.string().regex(HEADER_NAME, "Header names may only contain letters, digits and !#$%&'*+-.^_`|~"),
  z.string({ error: "Header values must be strings" }).regex(HEADER_VALUE, "Header values must not contain line breaks"),
  {
    // A record's own error would also replace the key's message, hiding which rule a name broke.
    error: (issue) => (issue.code === "invalid_key" ? issue.issues[0]?.message : "Headers must be a JSON object"),
  },
);
export type ToolHeaders = z.infer<typeof toolHeadersSchema>;

/** One parameter of the JSON schema; extra JSON-schema keywords (enum, items, ...) are kept for the AI. */
export const toolParameterSchema = z.looseObject({
  type: z.enum(JSON_SCHEMA_TYPES, {
    error: "Each parameter needs a type: string, number, integer, boolean, array or object",
  }),
  description: z.string({ error: "A parameter description must be text" }).optional(),
});
export type ToolParameter = z.infer<typeof toolParameterSchema>;

/** The JSON schema of a tool's arguments, as the AI provider's function `parameters` expects it. */
export const toolParametersSchema = z
  .looseObject(
    {
      type: z.literal("object", { error: 'Parameters must have "type": "object"' }).default("object"),
      properties: z.record(z.string().min(1), toolParameterSchema).default({}),
      required: z.array(z.string(), { error: "required must be a list of parameter names" }).default([]),
    },
    { error: "Parameters must be a JSON object" },
  )
  .refine((p) => p.required.every((name) => Object.hasOwn(p.properties, name)), {
    message: "Every required parameter must be listed in properties",
    path: ["required"],
  })
  .meta({ description: "Every name in `required` is a key of `properties`." });
export type ToolParameters = z.infer<typeof toolParametersSchema>;

export const toolRequestBodySchema = z.record(z.string(), z.unknown(), { error: "Request body must be a JSON object" });
export type ToolRequestBody = z.infer<typeof toolRequestBodySchema>;

// ── Tool input (API body) and form ─────────────────────────────────────────────────────────

const endPointUrlSchema = z
  .string({ error: TOOL_MESSAGES.invalidUrl })
  .trim()
  .max(2048, "URL must be at most 2048 characters")
  .pipe(z.url({ protocol: /^https?$/, error: TOOL_MESSAGES.invalidUrl }))
  .meta(httpUrlFormat("http(s)"));

const toolFields = {
  name: z
    .string({ error: TOOL_MESSAGES.nameRequired })
    .trim()
    .min(1, { error: TOOL_MESSAGES.nameRequired, abort: true })
    .regex(NOT_BLANK, TOOL_MESSAGES.nameRequired)
    .max(200, "Name must be at most 200 characters"),
  description: z.string().trim().max(2000, "Description must be at most 2000 characters").nullish(),
  type: toolTypeSchema,
  http_method: httpMethodSchema,
  parameter_format: parameterFormatSchema,
  end_point_url: endPointUrlSchema,
  /**
   * Plaintext, write-only. On update: omitted or blank = keep the stored key (the form leaves the
   * field empty when editing), null = remove it. The API never returns it (see `api_key_set` /
   * `api_key_hint`).
   */
  api_key: z.string().trim().max(4096, "API key must be at most 4096 characters").nullish(),
};

/** Body of create/update requests: JSON fields as objects. Missing JSON fields become empty. */
export const toolInputSchema = withExamples(
  z.object({
    ...toolFields,
    http_headers: toolHeadersSchema.prefault({}),
    parameters: toolParametersSchema.prefault({}),
    request_body: toolRequestBodySchema.prefault({}),
  }),
  {
    name: "lookup_appointment",
    type: "API",
    http_method: "GET",
    parameter_format: "standard",
    end_point_url: "https://api.example.com/appointments",
    http_headers: { Accept: "application/json" },
    parameters: {
      type: "object",
      properties: { patient_phone: { type: "string", description: "The caller's number in E.164" } },
      required: ["patient_phone"],
    },
  },
);
export type ToolInput = z.infer<typeof toolInputSchema>;

/** Body of `PATCH /api/tools/:id`: any subset of the fields; an omitted field keeps its value. */
export const toolUpdateSchema = withExamples(
  z
    .object({
      ...toolFields,
      http_headers: toolHeadersSchema,
      parameters: toolParametersSchema,
      request_body: toolRequestBodySchema,
    })
    .partial(),
  { end_point_url: "https://api.example.com/v2/appointments" },
);
export type ToolUpdate = z.infer<typeof toolUpdateSchema>;

/**
 * A textarea holding JSON: blank means empty, invalid JSON is an error on that field (design §1:
 * nothing typed is dropped silently). Issues are reported on the field itself so the form can
 * show them under the textarea.
 */
function jsonText<T extends z.ZodType>(schema: T, label: string) {
  return z.string().transform((text, ctx): z.output<T> => {
    let value: unknown = {};
    if (text.trim() !== "") {
      try {
        value = JSON.parse(text);
      } catch {
        ctx.issues.push({ code: "custom", message: `${label} must be valid JSON`, input: text });
        return z.NEVER;
      }
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const where = issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
        ctx.issues.push({ code: "custom", message: `${where}${issue.message}`, input: text });
      }
      return z.NEVER;
    }
    return parsed.data;
  });
}

/**
 * The Tools page form: same fields and messages as `toolInputSchema`, but the JSON fields are
 * textareas. Its output is a `ToolInput`, ready to send to the API.
 */
export const toolFormSchema = z.object({
  ...toolFields,
  http_headers: jsonText(toolHeadersSchema, "Headers"),
  parameters: jsonText(toolParametersSchema, "Parameters"),
  request_body: jsonText(toolRequestBodySchema, "Request body"),
});
export type ToolFormValues = z.input<typeof toolFormSchema>;

// ── Tool as returned by the API ────────────────────────────────────────────────────────────

// Deliberately lenient on the JSON fields: a row written before a rule tightened must still list.
export const toolSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type: toolTypeSchema,
  http_method: httpMethodSchema,
  parameter_format: parameterFormatSchema,
  end_point_url: z.string(),
  api_key_set: z.boolean(),
  /** e.g. "••••3f9a"; null when no key is set. */
  api_key_hint: z.string().nullable(),
  /**
   * Header names with masked values (`secretHint`): values are secrets (tokens, tenant keys). An
   * update that sends a header back with its mask unchanged keeps the stored value.
   */
  http_headers: z.record(z.string(), z.string()),
  parameters: z.record(z.string(), z.unknown()),
  request_body: z.record(z.string(), z.unknown()),
  /** ISO 8601 */
  created_at: z.string(),
  /** ISO 8601 */
  updated_at: z.string(),
});
/** GET list: a page of these (src/shared/pages.ts). */
export const toolPageSchema = pageOf(toolSchema);
export type Tool = z.infer<typeof toolSchema>;

const MASK = "••••";
// Short keys would be mostly revealed by their last four characters, so they get no suffix.
const MIN_LENGTH_FOR_SUFFIX = 12;

/** A stored secret as the API shows it: the mask, plus the last four characters of a long one. */
export function secretHint(value: string): string {
  return value.length >= MIN_LENGTH_FOR_SUFFIX ? `${MASK}${value.slice(-4)}` : MASK;
}

/** Whether a header value typed in the form is (or contains) the mask standing for a stored value. */
export const isMaskedValue = (value: string) => value.includes(MASK);

/** The two API fields that stand in for a stored API key. */
export function apiKeyView(apiKey: string | null | undefined): Pick<Tool, "api_key_set" | "api_key_hint"> {
  if (!apiKey) return { api_key_set: false, api_key_hint: null };
  return { api_key_set: true, api_key_hint: secretHint(apiKey) };
}

// ── Execution (spec §3 "Tool execution response", §7 tool-execution) ──────────────────────

export const toolExecutionRequestSchema = withExamples(
  z.object({
    parameters: z.record(z.string(), z.unknown(), { error: "parameters must be a JSON object" }).default({}),
  }),
  { parameters: { patient_phone: EXAMPLE_PHONES.caller } },
);
export type ToolExecutionRequest = z.infer<typeof toolExecutionRequestSchema>;

export const toolExecutionResponseSchema = z.object({
  /** true for a 2xx answer */
  success: z.boolean(),
  status: z.number().int(),
  statusText: z.string(),
  /** The method and URL (query included) of the last request made, after any redirects. */
  method: httpMethodSchema,
  url: z.string(),
  /** Parsed JSON when the answer is JSON, otherwise its text; null when the body is empty. */
  data: z.unknown(),
});
export type ToolExecutionResponse = z.infer<typeof toolExecutionResponseSchema>;

/**
 * Codes of the errors the engine raises when no upstream answer can be reported (sent as
 * `{ error: { code, message } }`). An upstream 4xx/5xx is not one of them: it is a normal
 * execution response with `success: false`.
 */
export const TOOL_EXECUTION_ERROR_CODES = [
  "tool_invalid_url",
  "tool_invalid_config",
  "tool_host_blocked",
  "tool_dns_failed",
  "tool_connection_failed",
  "tool_connect_timeout",
  "tool_timeout",
  "tool_response_too_large",
  "tool_too_many_redirects",
  "tool_bad_redirect",
  "tool_invalid_response",
  "tool_aborted",
] as const;
export type ToolExecutionErrorCode = (typeof TOOL_EXECUTION_ERROR_CODES)[number];
