/**
 * Knowledge bases: an organisation's documents, split into passages an assistant retrieves during
 * a call (or has placed whole in its instructions). Wire shapes of /api/knowledge-bases, the
 * assistant's knowledge settings and the texts the page and the server share.
 */
import { z } from "zod";
import { pageOf } from "./pages.js";
import { positiveInt32 } from "./bounds.js";
import { uuidSchema } from "./ids.js";
import { NOT_BLANK } from "./wire-formats.js";
import { withExamples } from "./examples.js";

// ── Limits ───────────────────────────────────────────────────────────────────────────────────

export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;
export const MAX_PASTED_TEXT = 2_000_000;
export const MAX_KNOWLEDGE_BASES = 100;
export const MAX_DOCUMENTS_PER_BASE = 1_000;
export const MAX_SEARCH_LIMIT = 20;
export const DEFAULT_SEARCH_LIMIT = 5;
/** "Place the whole text in the instructions" takes a base only up to this many characters. */
export const MAX_INLINE_KNOWLEDGE_CHARS = 40_000;

// ── Enumerations ─────────────────────────────────────────────────────────────────────────────

export const DOCUMENT_STATUSES = ["queued", "processing", "ready", "failed"] as const;
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];
export const DOCUMENT_SOURCES = ["upload", "url", "text"] as const;
export type DocumentSource = (typeof DOCUMENT_SOURCES)[number];
export const URL_REFRESH = ["never", "daily", "weekly"] as const;
export type UrlRefresh = (typeof URL_REFRESH)[number];
/** How an assistant uses its bases: a tool it calls, or their whole text in its instructions. */
export const KNOWLEDGE_MODES = ["tool", "instructions"] as const;
export type KnowledgeMode = (typeof KNOWLEDGE_MODES)[number];

/** The file types an upload may be, by extension (the browser's type is often blank or wrong). */
export const DOCUMENT_TYPES = { pdf: "PDF", docx: "DOCX", html: "HTML", htm: "HTML", md: "Markdown", markdown: "Markdown", txt: "Text", csv: "CSV" } as const;
export const DOCUMENT_ACCEPT = Object.keys(DOCUMENT_TYPES).map((ext) => `.${ext}`).join(",");

// ── Texts ────────────────────────────────────────────────────────────────────────────────────

export const KNOWLEDGE_TEXTS = {
  title: "Knowledge",
  intro: "Documents your assistants answer from. Each answer names its source.",
  nameRequired: "Name is required",
  notFound: "Knowledge base not found",
  documentNotFound: "Document not found",
  tooManyBases: `An organisation can have at most ${MAX_KNOWLEDGE_BASES} knowledge bases`,
  tooManyDocuments: `A knowledge base can have at most ${MAX_DOCUMENTS_PER_BASE} documents`,
  fileMissing: "Send the document in the multipart field \"file\"",
  fileEmpty: "The file is empty",
  fileTooLarge: `The file is larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB`,
  fileType: `The file must be one of: ${[...new Set(Object.values(DOCUMENT_TYPES))].join(", ")} (${DOCUMENT_ACCEPT})`,
  bodyShape: "Send a file (multipart field \"file\"), a {\"url\"} or a {\"name\", \"text\"}",
  textRequired: "Text is required",
  urlInvalid: "URL must be an http or https address",
  queryRequired: "Query is required",
  unknownBase: (ids: string[]) => `Knowledge base${ids.length > 1 ? "s" : ""} ${ids.join(", ")} ${ids.length > 1 ? "do" : "does"} not exist or ${ids.length > 1 ? "are not among your knowledge bases" : "is not one of yours"}`,
  tooLargeForInstructions: `These knowledge bases hold more than ${MAX_INLINE_KNOWLEDGE_CHARS.toLocaleString("en-US")} characters: use them as a tool instead`,
  fullTextOnly: "Search uses words only (no embeddings): add an OpenAI API key in Settings for meaning-based search.",
  fullTextOnlyServer: "Search uses words only: the database server has no pgvector extension (see the README).",
  // Why a document failed, in plain words (the job writes these).
  failedEmpty: "The document has no text to read.",
  failedPdfNoText: "The PDF has no text layer (a scan?): only PDFs with selectable text can be read.",
  failedUnreadable: (kind: string) => `The file could not be read as ${kind}.`,
  failedFetch: (detail: string) => `The address could not be fetched: ${detail}`,
  failedFetchStatus: (status: number) => `The address answered HTTP ${status}.`,
  failedUnexpected: "Processing failed unexpectedly; re-process it to try again.",
} as const;

/** The tool the model calls, unless the assistant's description replaces this one. */
export const DEFAULT_KNOWLEDGE_TOOL_DESCRIPTION =
  "Search the company's documents for facts (opening hours, prices, policies, delivery, returns). Call it before answering such a question; answer only from the passages it returns and name the source, e.g. \"According to our returns policy…\".";
export const KNOWLEDGE_TOOL_NAME = "search_knowledge";

// ── Input ────────────────────────────────────────────────────────────────────────────────────

const nameField = z.string({ error: KNOWLEDGE_TEXTS.nameRequired }).trim().min(1, { error: KNOWLEDGE_TEXTS.nameRequired, abort: true }).regex(NOT_BLANK, KNOWLEDGE_TEXTS.nameRequired).max(200, "Name must be at most 200 characters");
const descriptionField = z.string({ error: "Description must be text" }).trim().max(2000, "Description must be at most 2000 characters").nullish().transform((v) => v || null);

export const knowledgeBaseInputSchema = withExamples(
  z.object({ name: nameField, description: descriptionField }),
  { name: "Clinic handbook" },
);
export type KnowledgeBaseInput = z.infer<typeof knowledgeBaseInputSchema>;
export const knowledgeBaseUpdateSchema = withExamples(
  knowledgeBaseInputSchema.partial(),
  { name: "Clinic handbook 2027" },
);
export type KnowledgeBaseUpdate = z.infer<typeof knowledgeBaseUpdateSchema>;

const httpUrl = z
  .string({ error: KNOWLEDGE_TEXTS.urlInvalid })
  .trim()
  .max(2000, "URL must be at most 2000 characters")
  .refine((v) => {
    try {
      const u = new URL(v);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, KNOWLEDGE_TEXTS.urlInvalid);

export const documentUrlInputSchema = z.strictObject({
  url: httpUrl,
  name: nameField.optional(),
  refresh: z.enum(URL_REFRESH, { error: "refresh must be never, daily or weekly" }).default("never"),
});
export const documentTextInputSchema = z.strictObject({
  name: nameField,
  text: z.string({ error: KNOWLEDGE_TEXTS.textRequired }).trim().min(1, { error: KNOWLEDGE_TEXTS.textRequired, abort: true }).regex(NOT_BLANK, KNOWLEDGE_TEXTS.textRequired).max(MAX_PASTED_TEXT, `Text must be at most ${MAX_PASTED_TEXT} characters`),
});
/** JSON body of POST …/documents: a URL to fetch (optionally refreshed) or pasted text. */
export const documentJsonInputSchema = z.union([documentUrlInputSchema, documentTextInputSchema]);
export type DocumentJsonInput = z.infer<typeof documentJsonInputSchema>;

export const knowledgeSearchInputSchema = withExamples(
  z.object({
    query: z.string({ error: KNOWLEDGE_TEXTS.queryRequired }).trim().min(1, { error: KNOWLEDGE_TEXTS.queryRequired, abort: true }).regex(NOT_BLANK, KNOWLEDGE_TEXTS.queryRequired).max(1000, "Query must be at most 1000 characters"),
    limit: positiveInt32(`limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`).max(MAX_SEARCH_LIMIT, `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`).default(DEFAULT_SEARCH_LIMIT),
  }),
  { query: "Is there parking at the clinic?", limit: 3 },
);
export type KnowledgeSearchInput = z.infer<typeof knowledgeSearchInputSchema>;

/** An assistant's use of knowledge: which bases, how, and how many passages a question gets. */
export const assistantKnowledgeSchema = z.object({
  mode: z.enum(KNOWLEDGE_MODES, { error: "knowledge.mode must be tool or instructions" }).default("tool"),
  tool_description: z.string({ error: "knowledge.tool_description must be text" }).trim().max(2000, "The tool's description must be at most 2000 characters").nullish().transform((v) => v || null),
  passages: positiveInt32(`knowledge.passages must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`).max(MAX_SEARCH_LIMIT, `knowledge.passages must be a whole number from 1 to ${MAX_SEARCH_LIMIT}`).default(DEFAULT_SEARCH_LIMIT),
});
export type AssistantKnowledge = z.infer<typeof assistantKnowledgeSchema>;
export const DEFAULT_ASSISTANT_KNOWLEDGE: AssistantKnowledge = { mode: "tool", tool_description: null, passages: DEFAULT_SEARCH_LIMIT };

export const knowledgeBaseIdsSchema = z
  .array(uuidSchema("Each knowledge base id must be the id of one of your knowledge bases"), { error: "knowledge_base_ids must be a list of knowledge base ids" })
  .max(20, "An assistant can use at most 20 knowledge bases")
  .transform((ids) => [...new Set(ids.map((id) => id.toLowerCase()))]);

// ── Output ───────────────────────────────────────────────────────────────────────────────────

export const knowledgeDocumentSchema = z.object({
  id: z.string(),
  knowledge_base_id: z.string(),
  name: z.string(),
  source: z.enum(DOCUMENT_SOURCES),
  url: z.string().nullable(),
  refresh: z.enum(URL_REFRESH),
  content_type: z.string().nullable(),
  size_bytes: z.number().int(),
  status: z.enum(DOCUMENT_STATUSES),
  /** 0–100 while processing. */
  progress: z.number().int(),
  /** Why it failed, in plain words; null otherwise. */
  error: z.string().nullable(),
  chunk_count: z.number().int(),
  page_count: z.number().int().nullable(),
  /** Whether its passages have embeddings (false: found by words only). */
  embedded: z.boolean(),
  /** A URL's last fetch: when, and what went wrong (null when it worked). */
  last_fetched_at: z.string().nullable(),
  last_fetch_error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type KnowledgeDocument = z.infer<typeof knowledgeDocumentSchema>;
/** A knowledge base's documents, newest first. */
export const knowledgeDocumentPageSchema = pageOf(knowledgeDocumentSchema);

export const knowledgeBaseSchema = z.object({
  id: z.string(),
  organization_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  document_count: z.number().int(),
  chunk_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
/** GET list: a page of these (src/shared/pages.ts). */
export const knowledgeBasePageSchema = pageOf(knowledgeBaseSchema);
export type KnowledgeBase = z.infer<typeof knowledgeBaseSchema>;

/** What the page needs to say about search: meaning-based, or words only and why. */
export const knowledgeStatusSchema = z.object({
  vectors: z.boolean(),
  /** null when meaning-based search works; else the sentence the page shows. */
  notice: z.string().nullable(),
});
export type KnowledgeStatus = z.infer<typeof knowledgeStatusSchema>;

export const knowledgePassageSchema = z.object({
  document_id: z.string(),
  document_name: z.string(),
  /** "page 3", or the heading the passage sits under; null when the document has neither. */
  location: z.string().nullable(),
  text: z.string(),
  /** Reciprocal-rank fusion of the vector and word rankings: higher is better. */
  score: z.number(),
});
export type KnowledgePassage = z.infer<typeof knowledgePassageSchema>;

export const knowledgeSearchResultSchema = z.object({
  passages: z.array(knowledgePassageSchema),
  /** "hybrid" (meaning and words) or "full_text" (words only: no key, no pgvector, or embeddings failing). */
  mode: z.enum(["hybrid", "full_text"]),
});
export type KnowledgeSearchResult = z.infer<typeof knowledgeSearchResultSchema>;
