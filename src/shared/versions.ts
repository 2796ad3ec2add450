/**
 * Assistant versions: the draft (what the form edits, what the browser Test Call runs) and the
 * numbered, immutable published versions that phone numbers run (the latest, or one pinned on
 * the number). Wire shapes of /api/assistants/:id/versions, publish and rollback.
 */
import { z } from "zod";
import { positiveInt32 } from "./bounds.js";
import { pageOf } from "./pages.js";
import { DEFAULT_TIMEZONE, transferDestinationSchema, voicemailSchema, type Voicemail } from "./assistants.js";
import { DEFAULT_VOICE_ENGINE, voiceEngineViewSchema, type VoiceEngine } from "./providers.js";
import { withExamples } from "./examples.js";

/**
 * What a version holds: everything that changes what a caller hears. The name and description
 * identify the assistant and are not versioned. Unknown keys are kept (a setting added later,
 * such as the analysis, is versioned without a migration of the stored versions).
 */
export const assistantContentSchema = z.looseObject({
  first_message: z.string().nullable(),
  instructions: z.string().nullable(),
  tool_ids: z.array(z.string()),
  voice: z.string(),
  model: z.string(),
  transfer_destinations: z.array(transferDestinationSchema),
  allow_end_call: z.boolean(),
  keypad_input: z.boolean(),
});
export type AssistantContent = z.infer<typeof assistantContentSchema>;

/** What a call reads of a version beyond the schema's keys; a version made before they existed reads as the defaults. */
export function callSettingsOf(content: AssistantContent): { timeZone: string; allowDoNotCall: boolean; voicemail: Voicemail } {
  const voicemail = voicemailSchema.safeParse(content.voicemail ?? null);
  return {
    timeZone: typeof content.timezone === "string" ? content.timezone : DEFAULT_TIMEZONE,
    allowDoNotCall: content.allow_do_not_call === true,
    voicemail: voicemail.success ? voicemail.data : null,
  };
}

/** The engine a version's calls run on; a version made before voice engines (or unreadable) runs on OpenAI Realtime. */
export function voiceEngineOf(content: AssistantContent): VoiceEngine {
  const parsed = voiceEngineViewSchema.safeParse(content.voice_engine);
  return parsed.success ? parsed.data : DEFAULT_VOICE_ENGINE;
}

/** The fields the History panel compares, in the order it shows them, with their labels. */
export const VERSION_DIFF_FIELDS = [
  { key: "instructions", label: "Instructions" },
  { key: "first_message", label: "First message" },
  { key: "tool_ids", label: "Tools" },
  { key: "voice", label: "Voice" },
  { key: "model", label: "Model" },
  { key: "transfer_destinations", label: "Transfer destinations" },
  { key: "allow_end_call", label: "Allow the assistant to end the call" },
  { key: "keypad_input", label: "Keypad input" },
  { key: "timezone", label: "Time zone" },
  { key: "voicemail", label: "If a machine answers" },
  { key: "allow_do_not_call", label: "Do-not-call function" },
  { key: "analysis", label: "Analysis" },
  { key: "knowledge_base_ids", label: "Knowledge bases" },
  { key: "knowledge", label: "Knowledge use" },
  { key: "voice_engine", label: "Voice engine" },
] as const;

export const assistantVersionSummarySchema = z.object({
  version: z.number().int(),
  note: z.string().nullable(),
  /** ISO 8601 */
  published_at: z.string(),
  /** Who published it; null once that user is gone (or for the versions made by the upgrade). */
  published_by: z.object({ id: z.string(), name: z.string() }).nullable(),
  /** Published although a test scenario failed against it (the user confirmed). */
  published_with_failures: z.boolean(),
  /** What this version was made from: null for a publish of the draft, n for a roll back to vn. */
  rolled_back_from: z.number().int().nullable(),
});
export type AssistantVersionSummary = z.infer<typeof assistantVersionSummarySchema>;

export const assistantVersionSchema = assistantVersionSummarySchema.extend({ content: assistantContentSchema });
export type AssistantVersion = z.infer<typeof assistantVersionSchema>;

/** GET /api/assistants/:id/versions: a page, newest first, with which one is live and whether the draft differs from it. */
export const assistantVersionPageSchema = pageOf(assistantVersionSummarySchema).extend({
  live_version: z.number().int().nullable(),
  draft_changed: z.boolean(),
});
export type AssistantVersionPage = z.infer<typeof assistantVersionPageSchema>;

/** GET /api/assistants/drafts: each assistant's draft against what callers hear, for the list and forms. */
export const draftStateSchema = z.object({
  assistant_id: z.string(),
  /** The latest published version; null before the first publish. */
  live_version: z.number().int().nullable(),
  /** The draft holds changes no published version has yet. */
  draft_changed: z.boolean(),
});
export type DraftState = z.infer<typeof draftStateSchema>;
/** The drafts, in the assistants list's order (newest assistant first). */
export const draftStatePageSchema = pageOf(draftStateSchema);

export const VERSION_MESSAGES = {
  notFound: "Version not found",
  versionInvalid: "version must be a whole number from 1",
  noteTooLong: "Note must be at most 500 characters",
  published: (n: number) => `Published as v${n}`,
  rolledBack: (n: number, from: number) => `Rolled back: v${n} is live with the content of v${from}`,
  publishFailed: "Failed to publish",
  unknownVersion: (n: number) => `Version ${n} does not exist for this assistant`,
  pinNeedsAssistant: "Assign an assistant to the number before pinning a version",
  draft: "Draft",
  /** Beside the assistant's name (list, details, form) while the draft differs from what callers hear. */
  draftBadge: (live: number) => `Draft — callers hear v${live}`,
  saveDraft: "Save draft",
  savingDraft: "Saving draft...",
  draftSaved: (live: number) => `Draft saved — callers hear v${live} until you publish it`,
  savedLive: (live: number) => `Saved — callers hear v${live}`,
  publish: "Publish",
  rollbackTitle: (n: number) => `Roll back to v${n}?`,
  rollbackBody: (n: number, next: number) =>
    `Callers will hear the content of v${n}, published as v${next}. The draft is not changed: publishing it later releases what it holds again, so edit it first if what you roll back should not return.`,
  rollbackConfirm: "Roll back",
  latest: "Latest",
  pinLabel: "Version",
  pinDescription: "Which published version callers of this number hear. Pin one to keep it while newer ones are published.",
  pinLatest: (live: number | null) => (live === null ? "Latest published" : `Latest published (now v${live})`),
  pinVersion: (n: number, note: string | null) => `Pinned to v${n}${note ? ` — ${note}` : ""}`,
  runsOn: (numbers: string) => `Answering on ${numbers}`,
  noNumberRuns: "No number runs this version",
} as const;

const versionNumber = positiveInt32(VERSION_MESSAGES.versionInvalid);
export const versionNumberSchema = versionNumber;

/** Body of POST /api/assistants/:id/publish. */
export const publishSchema = withExamples(
  z.object({
    note: z
      .string()
      .trim()
      .max(500, VERSION_MESSAGES.noteTooLong)
      .nullish()
      .transform((v) => (v ? v : null)),
    /** Publish although a test scenario failed against the draft (the user confirmed). */
    confirm_failures: z.boolean({ error: "confirm_failures must be true or false" }).optional(),
  }),
  { note: "Opening hours for the holidays" },
);
export type PublishInput = z.infer<typeof publishSchema>;

/** Body of POST /api/assistants/:id/rollback. */
export const rollbackSchema = withExamples(
  z.object({ version: versionNumber }),
  { version: 1 },
);

/** The label of a call's version: "v3", or "Draft" for a browser test call of the draft. */
export const versionLabel = (version: number | null): string => (version === null ? VERSION_MESSAGES.draft : `v${version}`);
