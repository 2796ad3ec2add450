/**
 * Post-call analysis: what an assistant asks of each ended call (its `analysis` settings: a
 * summary, fields to extract, a success rubric and scale, the text model) and what the call
 * record keeps of the answer (its `analysis`). Both sides import this file: the form validates
 * with the schema the server checks the API body with.
 */
import { z } from "zod";
import { isoDateTime, positiveInt32 } from "./bounds.js";

import { optionalText, text } from "./text-fields.js";
import { NOT_BLANK, when } from "./wire-formats.js";
import { withExamples } from "./examples.js";

// ── Settings on the assistant ───────────────────────────────────────────────────────────────

/** The text models an analysis may run on (each priced in the server's provider-prices.ts). */
export const ANALYSIS_MODELS = ["gpt-5-mini", "gpt-5", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini", "gpt-4o", "gpt-4o-mini"] as const;
export const DEFAULT_ANALYSIS_MODEL: (typeof ANALYSIS_MODELS)[number] = "gpt-5-mini";

export const ANALYSIS_FIELD_TYPES = ["string", "number", "boolean", "enum", "date"] as const;
export type AnalysisFieldType = (typeof ANALYSIS_FIELD_TYPES)[number];
/** How the form names each type. */
export const ANALYSIS_FIELD_TYPE_LABELS: Record<AnalysisFieldType, string> = {
  string: "Text",
  number: "Number",
  boolean: "Yes/no",
  enum: "One of a list",
  date: "Date",
};

export const SUCCESS_SCALES = ["pass_fail", "score", "categories"] as const;
export type SuccessScale = (typeof SUCCESS_SCALES)[number];
export const SUCCESS_SCALE_LABELS: Record<SuccessScale, string> = {
  pass_fail: "Pass / fail",
  score: "Score from 1 to 10",
  categories: "One of named categories",
};
export const SCORE_MIN = 1;
export const SCORE_MAX = 10;

export const MAX_ANALYSIS_FIELDS = 25;
export const MAX_FIELD_OPTIONS = 50;
export const MAX_SUCCESS_CATEGORIES = 20;
/** snake_case: a lower-case letter, then lower-case letters, digits and single underscores. */
export const FIELD_NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const FIELD_NAME_MAX = 40;

export const ANALYSIS_MESSAGES = {
  fieldNameRequired: "Each field needs a name",
  fieldNameFormat: "Field names must be snake_case: lower-case letters, digits and underscores, starting with a letter (e.g. order_id)",
  duplicateField: "Field names must be different",
  optionsRequired: "A \"one of a list\" field needs at least one option",
  duplicateOption: "Options of a field must be different",
  tooManyFields: `An assistant can extract at most ${MAX_ANALYSIS_FIELDS} fields`,
  categoriesRequired: "Scoring by categories needs at least two categories",
  duplicateCategory: "Categories must be different",
  modelInvalid: `Analysis model must be one of: ${ANALYSIS_MODELS.join(", ")}`,
  // Call pages and the Run again action.
  runAgain: "Run again",
  retry: "Retry",
  queued: "Analysis queued",
  pending: "Analysing the call...",
  skipped: "Not analysed: the caller said nothing",
  failed: "Analysis failed",
  inProgress: "A call in progress cannot be analysed yet",
  noApiKey: "Add your OpenAI API key in Settings before analysing calls.",
  backfillQueued: "Analysing past calls",
  backfillRunning: "Past calls are already being analysed for this assistant",
  backfillRange: "Choose the last N calls or a date range",
} as const;


const optionSchema = text(100, "Option").min(1, { error: "Options cannot be blank", abort: true }).regex(NOT_BLANK, "Options cannot be blank");

export const analysisFieldSchema = z
  .object({
    name: z
      .string({ error: ANALYSIS_MESSAGES.fieldNameRequired })
      .trim()
      .min(1, { error: ANALYSIS_MESSAGES.fieldNameRequired, abort: true })
      .regex(NOT_BLANK, ANALYSIS_MESSAGES.fieldNameRequired)
      .max(FIELD_NAME_MAX, `Field names must be at most ${FIELD_NAME_MAX} characters`)
      .regex(FIELD_NAME, ANALYSIS_MESSAGES.fieldNameFormat),
    type: z.enum(ANALYSIS_FIELD_TYPES, { error: `Field type must be one of: ${ANALYSIS_FIELD_TYPES.join(", ")}` }),
    description: text(500, "Field description").default(""),
    required: z.boolean({ error: "required must be true or false" }).default(false),
    options: z.array(optionSchema, { error: "options must be a list of texts" }).max(MAX_FIELD_OPTIONS, `A field can have at most ${MAX_FIELD_OPTIONS} options`).optional(),
  })
  .meta(when({ required: ["type"], properties: { type: { const: "enum" } } }, { required: ["options"], properties: { options: { minItems: 1 } } }))
  .superRefine((field, ctx) => {
    if (field.type === "enum" && (field.options ?? []).length === 0) ctx.addIssue({ code: "custom", path: ["options"], message: ANALYSIS_MESSAGES.optionsRequired });
    const options = field.options ?? [];
    if (new Set(options.map((o) => o.toLowerCase())).size !== options.length) ctx.addIssue({ code: "custom", path: ["options"], message: ANALYSIS_MESSAGES.duplicateOption });
  })
  // Options mean something only for a list; elsewhere they are dropped rather than kept unused.
  .transform(({ options, ...field }): AnalysisField => (field.type === "enum" ? { ...field, options: options ?? [] } : field));
export interface AnalysisField {
  name: string;
  type: AnalysisFieldType;
  description: string;
  required: boolean;
  /** "enum" fields only. */
  options?: string[];
}

export const analysisSettingsSchema = z
  .object({
    summary: z
      .object({
        enabled: z.boolean({ error: "summary.enabled must be true or false" }).default(true),
        /** e.g. "Summarise in two sentences for a supervisor"; null: the default instruction. */
        prompt: optionalText(2000, "Summary prompt"),
      })
      .default({ enabled: true, prompt: null }),
    fields: z.array(analysisFieldSchema, { error: "fields must be a list" }).max(MAX_ANALYSIS_FIELDS, ANALYSIS_MESSAGES.tooManyFields).default([]),
    success: z
      .object({
        rubric: optionalText(4000, "Success rubric"),
        scale: z.enum(SUCCESS_SCALES, { error: `Success scale must be one of: ${SUCCESS_SCALES.join(", ")}` }).default("pass_fail"),
        categories: z.array(text(60, "Category").min(1, { error: "Categories cannot be blank", abort: true }).regex(NOT_BLANK, "Categories cannot be blank")).max(MAX_SUCCESS_CATEGORIES, `At most ${MAX_SUCCESS_CATEGORIES} categories`).optional(),
      })
      .meta(when({ required: ["scale"], properties: { scale: { const: "categories" } } }, { required: ["categories"], properties: { categories: { minItems: 2 } } }))
      .default({ rubric: null, scale: "pass_fail" }),
    model: z.enum(ANALYSIS_MODELS, { error: ANALYSIS_MESSAGES.modelInvalid }).default(DEFAULT_ANALYSIS_MODEL),
  })
  .superRefine((settings, ctx) => {
    const seen = new Map<string, number>();
    settings.fields.forEach((field, i) => {
      if (seen.has(field.name)) ctx.addIssue({ code: "custom", path: ["fields", i, "name"], message: `${ANALYSIS_MESSAGES.duplicateField}: "${field.name}" is used twice` });
      seen.set(field.name, i);
    });
    const { scale, categories = [] } = settings.success;
    if (scale === "categories" && categories.length < 2) ctx.addIssue({ code: "custom", path: ["success", "categories"], message: ANALYSIS_MESSAGES.categoriesRequired });
    if (new Set(categories.map((c) => c.toLowerCase())).size !== categories.length) ctx.addIssue({ code: "custom", path: ["success", "categories"], message: ANALYSIS_MESSAGES.duplicateCategory });
  })
  .transform(({ success: { categories, ...success }, ...settings }) => ({
    ...settings,
    success: (success.scale === "categories" ? { ...success, categories: categories ?? [] } : success) as { rubric: string | null; scale: SuccessScale; categories?: string[] },
  }));
export type AnalysisSettings = z.output<typeof analysisSettingsSchema>;
export type AnalysisSettingsInput = z.input<typeof analysisSettingsSchema>;

/** What an assistant without settings of its own (and a new one) analyses: a summary and pass/fail. */
export const DEFAULT_ANALYSIS_SETTINGS: AnalysisSettings = analysisSettingsSchema.parse({});

// ── The result on the call record ───────────────────────────────────────────────────────────

export const ANALYSIS_STATUSES = ["pending", "done", "failed", "skipped"] as const;
export type AnalysisStatus = (typeof ANALYSIS_STATUSES)[number];

export const successValueSchema = z.union([z.string(), z.number()]);
export type SuccessValue = z.infer<typeof successValueSchema>;

export const callAnalysisSchema = z.object({
  status: z.enum(ANALYSIS_STATUSES),
  /** null when the summary is off, or before the analysis is done. */
  summary: z.string().nullable(),
  /** One value per extracted field (null: not found in the call). */
  data: z.record(z.string(), z.unknown()),
  /** "pass" | "fail", a score (1–10) or a category, with the model's reason. */
  success: z.object({ value: successValueSchema.nullable(), reason: z.string() }).nullable(),
  model: z.string(),
  /** USD of this analysis (usage × the model's price); null before it is done. */
  cost: z.number().nullable(),
  /** Why it failed, in words a user can act on. */
  error: z.string().optional(),
  /** ISO 8601; null while pending. */
  completed_at: z.iso.datetime().nullable(),
});
export type CallAnalysis = z.infer<typeof callAnalysisSchema>;

/** POST /api/assistants/:id/analysis-runs: the last N ended calls, or those started in a range. */
export const MAX_BACKFILL_CALLS = 1000;
export const analysisBackfillInputSchema = withExamples(
  z
    .object({
      last: positiveInt32(`last must be a whole number from 1 to ${MAX_BACKFILL_CALLS}`).max(MAX_BACKFILL_CALLS, `At most ${MAX_BACKFILL_CALLS} calls at once`).optional(),
      from: isoDateTime("from must be an ISO date-time").optional(),
      to: isoDateTime("to must be an ISO date-time").optional(),
    })
    .refine((b) => (b.last !== undefined) !== (b.from !== undefined || b.to !== undefined), ANALYSIS_MESSAGES.backfillRange)
    // `{ not: {} }`: the field may not be given.
    .meta({
      oneOf: [
        { required: ["last"], properties: { from: { not: {} }, to: { not: {} } } },
        { anyOf: [{ required: ["from"] }, { required: ["to"] }], properties: { last: { not: {} } } },
      ],
      description: "The last N calls, or a range (from before to).",
    })
    .refine((b) => !(b.from && b.to) || Date.parse(b.from) < Date.parse(b.to), { message: "from must be before to", path: ["to"] }),
  { last: 50 },
);
export type AnalysisBackfillInput = z.infer<typeof analysisBackfillInputSchema>;

export const ANALYSIS_RUN_STATUSES = ["running", "done"] as const;
export const analysisRunSchema = z.object({
  id: z.string(),
  assistant_id: z.string(),
  status: z.enum(ANALYSIS_RUN_STATUSES),
  /** Calls chosen (at most MAX_BACKFILL_CALLS). */
  total: z.number(),
  /** Of those, analysed (done, failed or skipped) so far. */
  finished: z.number(),
  created_at: z.iso.datetime(),
});
export type AnalysisRun = z.infer<typeof analysisRunSchema>;

/** The success value as the badge and the CSV show it. */
export function formatSuccess(value: SuccessValue | null | undefined): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return `${value}/${SCORE_MAX}`;
  return value === "pass" ? "Pass" : value === "fail" ? "Fail" : value;
}

/** The analysis settings as lines a person reads (Compare versions): no JSON. */
export const ANALYSIS_SUMMARY_TEXTS = {
  summaryOff: "Summary: Off",
  summaryOn: (prompt: string | null) => `Summary: On${prompt ? ` — ${prompt}` : " (the default instruction)"}`,
  noFields: "Fields to extract: none",
  fieldsTitle: "Fields to extract:",
  field: (f: AnalysisField) =>
    `• ${f.name} — ${ANALYSIS_FIELD_TYPE_LABELS[f.type]}${f.type === "enum" && f.options?.length ? ` (${f.options.join(", ")})` : ""}${f.required ? ", required" : ""}${f.description ? `: ${f.description}` : ""}`,
  success: (scale: SuccessScale, categories: string[] | undefined) =>
    `Success: ${SUCCESS_SCALE_LABELS[scale]}${scale === "categories" && categories?.length ? ` (${categories.join(", ")})` : ""}`,
  rubric: (rubric: string) => `Rubric: ${rubric}`,
  model: (model: string) => `Model: ${model}`,
};

export function describeAnalysis(settings: AnalysisSettings): string {
  const T = ANALYSIS_SUMMARY_TEXTS;
  const lines = [settings.summary.enabled ? T.summaryOn(settings.summary.prompt) : T.summaryOff];
  if (settings.fields.length === 0) lines.push(T.noFields);
  else lines.push(T.fieldsTitle, ...settings.fields.map(T.field));
  lines.push(T.success(settings.success.scale, settings.success.categories));
  if (settings.success.rubric) lines.push(T.rubric(settings.success.rubric));
  lines.push(T.model(settings.model));
  return lines.join("\n");
}
