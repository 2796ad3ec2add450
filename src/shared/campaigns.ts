/**
 * Campaigns: a list of contacts the assistant calls, with calling windows (in each contact's
 * time zone), pacing and retries. The API's shapes and the page's texts; both sides use it.
 */
import { z } from "zod";
import { pageOf } from "./pages.js";
import { isoDateTime } from "./bounds.js";

import { successValueSchema } from "./analysis.js";
import { uuidSchema } from "./ids.js";
import { PHONE_COUNTRY_CODES, type PhoneCountryCode } from "./phone-numbers.js";
import { toE164 } from "./phone-format.js";
import { CALL_OUTCOMES, MAX_VARIABLES, VARIABLE_NAME } from "./outbound.js";
import { isTimeZone } from "./variables.js";
import { NOT_BLANK, timeZoneFormat } from "./wire-formats.js";
import { EXAMPLE_IDS, withExamples } from "./examples.js";

export const CAMPAIGN_STATUSES = ["draft", "waiting", "running", "paused", "completed", "cancelled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const CAMPAIGN_ACTIONS = ["start", "pause", "resume", "cancel"] as const;
export type CampaignAction = (typeof CAMPAIGN_ACTIONS)[number];

/** A contact's last outcome: a call's, or `dnc` when the list stopped it. */
export const CONTACT_OUTCOMES = ["completed", ...CALL_OUTCOMES, "dnc"] as const;
export type ContactOutcome = (typeof CONTACT_OUTCOMES)[number];
export const CONTACT_STATES = ["pending", "calling", "done"] as const;
export type ContactState = (typeof CONTACT_STATES)[number];

/** Which statuses each action moves a campaign from, and to ("waiting" is a running campaign outside its windows). */
export const CAMPAIGN_TRANSITIONS: Record<CampaignAction, { from: CampaignStatus[]; to: CampaignStatus }> = {
  start: { from: ["draft"], to: "running" },
  pause: { from: ["running"], to: "paused" },
  resume: { from: ["paused"], to: "running" },
  cancel: { from: ["draft", "running", "paused"], to: "cancelled" },
};

/** The actions a campaign shown with `status` offers. */
export function campaignActions(status: CampaignStatus): CampaignAction[] {
  const stored = status === "waiting" ? "running" : status;
  return CAMPAIGN_ACTIONS.filter((a) => CAMPAIGN_TRANSITIONS[a].from.includes(stored));
}

export const MAX_CAMPAIGN_CONTACTS = 100_000;
export const MIN_RETRY_DELAY_SECONDS = 30;

export const CAMPAIGN_TEXTS = {
  phoneColumn: "The CSV needs a phone column",
  invalidPhone: "Not an E.164 phone number",
  /** A national number ("07700 900112") with no default country to read it in. */
  invalidPhoneNational: "Not an E.164 phone number: choose the country of national numbers, or write it with +country code",
  duplicate: "Duplicate of an earlier row",
  dnc: "On the do-not-call list",
  badTimeZone: "Unknown time zone",
  tooMany: `A campaign can have at most ${MAX_CAMPAIGN_CONTACTS.toLocaleString("en-US")} contacts`,
  noContacts: "The CSV has no valid contacts",
  notDraft: "Contacts can be replaced only before the campaign starts",
  csvTooLarge: (mb: number) => `The CSV must be at most ${mb} MB`,
  tooManyVariables: (n: number) => `The CSV has ${n} variable columns; a contact can have at most ${MAX_VARIABLES} (every column but phone and timezone is one)`,
  unreadable: (line: number, why: string) => `The CSV could not be read at line ${line}: ${why}`,
  quoteInField: 'a quote (") inside a field that does not start with one. Put the whole field in quotes and write the quote twice, e.g. "Ann ""Nan"" Smith"',
  unclosedQuote: "a quoted field is never closed",
  textAfterQuote: "a quoted field has more text after its closing quote",
  nulCharacter: (row: number) => `The CSV could not be read: row ${row} holds a NUL character (code 0), which contact details cannot contain`,
  outsideWindows: "Outside its calling windows",
  beforeStart: (at: string) => `Starts at ${at}`,
  notAllowed: (action: string, status: string) => `A ${status} campaign cannot ${action}`,
} as const;

/** The Campaigns page's words. */
export const CAMPAIGN_PAGE_TEXTS = {
  title: "Campaigns",
  description: "The assistant calls a list of contacts, within calling hours, with retries.",
  empty: "No campaigns yet",
  emptyHint: "Upload a CSV of contacts with a phone column; every other column becomes a {{variable}} of the call.",
  readOnly: "Only builders can create and run campaigns.",
  create: "Create campaign",
  creating: "Creating...",
  created: (valid: number) => `Campaign created with ${valid.toLocaleString("en-US")} ${valid === 1 ? "contact" : "contacts"}`,
  skipped: (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "row was" : "rows were"} left out`,
  willSkip: (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "row" : "rows"} will be left out`,
  createFailed: "Failed to create the campaign.",
  actionFailed: "The campaign could not change.",
  actionDone: { start: "Campaign started", pause: "Campaign paused", resume: "Campaign resumed", cancel: "Campaign cancelled" } satisfies Record<CampaignAction, string>,
  cancelConfirm: "Cancel this campaign? No more contacts will be called; calls in progress finish. This cannot be undone.",
  chooseFile: "Choose a CSV file with a phone column",
  pickAssistant: "Select an assistant",
  pickNumber: "Select a phone number",
  previewTitle: (rows: number) => `${rows.toLocaleString("en-US")} ${rows === 1 ? "row" : "rows"} read`,
  previewNote: "The server checks the do-not-call list when the campaign is created.",
  defaultCountry: "Country of national numbers",
  defaultCountryHelp: "Numbers without a +country code, such as 07700 900112, are read as numbers of this country.",
  noDefaultCountry: "None: every number has its +country code",
  sampleCsv: "Download a sample CSV",
  variablesFound: "Variables from the other columns",
  noWindows: "Add at least one calling window",
  downloadCsv: "Download contacts CSV",
  notFound: "This campaign does not exist, or belongs to another organisation.",
  loadMore: "Load more",
  back: "All campaigns",
  successTitle: "Success by outcome",
  successEmpty: "No analysed calls yet. Calls are scored by the assistant's analysis once they end.",
  analysed: (n: number) => `${n.toLocaleString("en-US")} analysed ${n === 1 ? "call" : "calls"}`,
} as const;

export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: "Draft",
  waiting: "Waiting",
  running: "Running",
  paused: "Paused",
  completed: "Completed",
  cancelled: "Cancelled",
};
export const CAMPAIGN_ACTION_LABELS: Record<CampaignAction, string> = { start: "Start", pause: "Pause", resume: "Resume", cancel: "Cancel campaign" };
export const CONTACT_OUTCOME_LABELS: Record<ContactOutcome, string> = {
  completed: "Completed",
  no_answer: "No answer",
  busy: "Busy",
  failed: "Failed",
  voicemail: "Voicemail",
  dnc: "Do-not-call",
};
export const CONTACT_STATE_LABELS: Record<ContactState, string> = { pending: "Pending", calling: "Calling", done: "Done" };
export const CAMPAIGN_COUNT_LABELS = {
  pending: "Pending",
  calling: "Calling",
  ...CONTACT_OUTCOME_LABELS,
  retries_scheduled: "Retries scheduled",
} as const;
/** ISO weekdays 1..7, as the windows spell them. */
export const WEEKDAY_LABELS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] as const;

const hhmm = z.string({ error: "Times are HH:MM" }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, "Times are HH:MM, e.g. 09:00");

export const campaignWindowSchema = z
  .object({
    days: z.array(z.number().int().min(1, "Days are ISO weekdays 1 (Monday) to 7 (Sunday)").max(7, "Days are ISO weekdays 1 (Monday) to 7 (Sunday)")).min(1, "Pick at least one day"),
    start: hhmm,
    end: hhmm,
  })
  .refine((w) => w.start < w.end, { message: "A window ends after it starts", path: ["end"] })
  .meta({ description: "A window ends after it starts (end later than start, the same day)." });
export type CampaignWindow = z.infer<typeof campaignWindowSchema>;

const timeZone = z.string({ error: "Time zone must be text" }).refine(isTimeZone, "Time zone must be an IANA time zone, e.g. Europe/London").meta(timeZoneFormat);

export const campaignScheduleSchema = z.object({
  timezone: timeZone,
  start_at: isoDateTime("start_at must be an ISO date-time").nullish(),
  windows: z.array(campaignWindowSchema).min(1, "Add at least one calling window").max(14, "At most 14 windows"),
});
export type CampaignSchedule = z.infer<typeof campaignScheduleSchema>;

export const campaignRetrySchema = z.object({
  max_attempts: z.number({ error: "max_attempts must be a number" }).int().min(1, "max_attempts must be at least 1").max(10, "max_attempts must be at most 10"),
  delay_seconds: z.number({ error: "delay_seconds must be a number" }).int().min(MIN_RETRY_DELAY_SECONDS, `delay_seconds must be at least ${MIN_RETRY_DELAY_SECONDS}`).max(7 * 86400, "delay_seconds must be at most a week"),
  on: z.array(z.enum(CALL_OUTCOMES, { error: "Retry outcomes are no_answer, busy, failed or voicemail" })),
});
export type CampaignRetry = z.infer<typeof campaignRetrySchema>;

export const defaultCountrySchema = z.enum(PHONE_COUNTRY_CODES, { error: `default_country must be one of: ${PHONE_COUNTRY_CODES.join(", ")}` });
/** PUT /api/campaigns/:id/contacts?default_country=GB */
export const contactsImportQuerySchema = z.object({ default_country: defaultCountrySchema.optional() });

/** The sample a new user downloads: the columns a campaign reads, a national number among them. */
export const SAMPLE_CONTACTS_CSV = ["phone,first_name,timezone", "+14155550100,Ann,America/Los_Angeles", "07700 900112,Ben,Europe/London", "+33 6 12 34 56 78,Chloé,"].join("\n") + "\n";

export const campaignInputSchema = withExamples(
  z.object({
    name: z.string({ error: "Name is required" }).trim().min(1, { error: "Name is required", abort: true }).regex(NOT_BLANK, "Name is required").max(200, "Name must be at most 200 characters"),
    assistant_id: uuidSchema("Assistant not found"),
    phone_number_id: uuidSchema("Phone number not found"),
    /** Optional: a large CSV is better streamed to PUT /api/campaigns/:id/contacts (text/csv) once the draft exists. */
    contacts_csv: z.string({ error: "contacts_csv must be the CSV's text" }).min(1, CAMPAIGN_TEXTS.noContacts).optional(),
    /** How national numbers in the CSV are read ("07700 900112" with GB); without it only E.164 is. */
    default_country: defaultCountrySchema.nullish(),
    max_concurrent_calls: z.number({ error: "max_concurrent_calls must be a number" }).int().min(1, "max_concurrent_calls must be at least 1").max(1000, "max_concurrent_calls must be at most 1000"),
    calls_per_minute: z.number().int().min(1, "calls_per_minute must be at least 1").max(6000, "calls_per_minute must be at most 6000").nullish(),
    schedule: campaignScheduleSchema,
    retry: campaignRetrySchema.default({ max_attempts: 1, delay_seconds: 300, on: [] }),
  }),
  {
    name: "Flu shot reminders",
    assistant_id: EXAMPLE_IDS.assistant,
    phone_number_id: EXAMPLE_IDS.phoneNumber,
    contacts_csv: "phone,patient_name\n+14155550134,Dana Reyes\n+14155550188,Sam Okafor\n",
    default_country: "US",
    max_concurrent_calls: 2,
    calls_per_minute: 10,
    schedule: { timezone: "America/Los_Angeles", windows: [{ days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00" }] },
    retry: { max_attempts: 2, delay_seconds: 3600, on: ["no_answer", "busy"] },
  },
);
export type CampaignInput = z.infer<typeof campaignInputSchema>;

export const invalidContactSchema = z.object({ row: z.number(), phone: z.string(), reason: z.string() });
export type InvalidContact = z.infer<typeof invalidContactSchema>;
/** What an upload of contacts did: rows stored, and the rows left out (the first 1,000) with why. */
export const contactsImportSchema = z.object({ valid: z.number(), invalid: z.array(invalidContactSchema) });
export type ContactsImport = z.infer<typeof contactsImportSchema>;

export const campaignCountsSchema = z.object({
  pending: z.number(),
  calling: z.number(),
  completed: z.number(),
  no_answer: z.number(),
  busy: z.number(),
  failed: z.number(),
  voicemail: z.number(),
  dnc: z.number(),
  retries_scheduled: z.number(),
});
export type CampaignCounts = z.infer<typeof campaignCountsSchema>;

/** Contacts in all, and those done (neither waiting nor on a call); retries are among the pending. */
export function campaignProgress(c: CampaignCounts): { total: number; done: number } {
  const done = c.completed + c.no_answer + c.busy + c.failed + c.voicemail + c.dnc;
  return { total: done + c.pending + c.calling, done };
}

/**
 * Success by outcome: for each contact outcome, its calls the analysis scored (each contact's
 * last call) and how many got each success value — pass/fail, a score or a category, as the
 * assistant's rubric scores them. Outcomes with no scored call are left out.
 */
export const campaignSuccessSchema = z.array(
  z.object({
    outcome: z.enum(CONTACT_OUTCOMES),
    analysed: z.number(),
    values: z.array(z.object({ value: successValueSchema, count: z.number() })),
  }),
);
export type CampaignSuccess = z.infer<typeof campaignSuccessSchema>;

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  assistant_id: z.string().nullable(),
  phone_number_id: z.string().nullable(),
  status: z.enum(CAMPAIGN_STATUSES),
  waiting_reason: z.string().nullable(),
  max_concurrent_calls: z.number(),
  calls_per_minute: z.number().nullable(),
  schedule: campaignScheduleSchema,
  retry: campaignRetrySchema,
  counts: campaignCountsSchema,
  success_by_outcome: campaignSuccessSchema,
  created_at: z.string(),
});
/** GET /api/campaigns: a page of these, newest first (src/shared/pages.ts). */
export const campaignPageSchema = pageOf(campaignSchema);
export type Campaign = z.infer<typeof campaignSchema>;

export const campaignContactSchema = z.object({
  row: z.number(),
  phone: z.string(),
  timezone: z.string().nullable(),
  variables: z.record(z.string(), z.string()),
  state: z.enum(CONTACT_STATES),
  attempts: z.number(),
  last_outcome: z.enum(CONTACT_OUTCOMES).nullable(),
  next_attempt_at: z.string().nullable(),
  call_id: z.string().nullable(),
});
export type CampaignContact = z.infer<typeof campaignContactSchema>;

/** GET /api/campaigns/:id/contacts: a page of contacts in row order (src/shared/pages.ts). */
export const campaignContactPageSchema = pageOf(campaignContactSchema);
export type CampaignContactPage = z.infer<typeof campaignContactPageSchema>;

/** The CSV columns that become variables of the call: every one but phone and timezone that a placeholder can name. */
export const variableColumns = (columns: readonly string[]): string[] => columns.filter((c) => c !== "phone" && c !== "timezone" && VARIABLE_NAME.test(c) && c.length <= 64);

/** Whether `at` falls in one of the windows, read on the wall clock of `timeZone`. */
export function inWindows(windows: readonly CampaignWindow[], timeZone: string, at: Date): boolean {
  const parts = new Intl.DateTimeFormat("en-US", { timeZone, weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const day = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"].indexOf(get("weekday")) + 1;
  const time = `${get("hour")}:${get("minute")}`;
  return windows.some((w) => w.days.includes(day) && w.start <= time && time < w.end);
}

/**
 * A CSV's phone cell as the number dialled (E.164), read with the campaign's default country, or
 * why it is left out. The browser's preview and the server's import read it the same way.
 */
export function readContactPhone(raw: string, defaultCountry: PhoneCountryCode | null): { phone: string } | { reason: string } {
  const phone = toE164(raw, defaultCountry);
  if (phone) return { phone };
  const national = defaultCountry === null && /^\d{6,}$/.test(raw.replace(/[\s\-().]/g, ""));
  return { reason: national ? CAMPAIGN_TEXTS.invalidPhoneNational : CAMPAIGN_TEXTS.invalidPhone };
}
