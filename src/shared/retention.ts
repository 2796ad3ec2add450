/**
 * Settings → Data retention (GET/PUT /api/settings/retention): how long recordings and calls are
 * kept. Off (null) by default; the server's hourly job removes what is older.
 */
import { z } from "zod";
import { positiveInt32 } from "./bounds.js";
import { withExamples } from "./examples.js";

export const RETENTION_MAX_DAYS = 3650;
export const RETENTION_MESSAGES = {
  days: `Enter a whole number of days from 1 to ${RETENTION_MAX_DAYS}, or leave it empty to keep everything`,
  saved: "Retention settings saved",
  saveFailed: "Failed to save retention settings.",
} as const;

const days = positiveInt32(RETENTION_MESSAGES.days).max(RETENTION_MAX_DAYS, RETENTION_MESSAGES.days).nullable();

export const retentionSettingsSchema = withExamples(
  z.object({
    /** Delete recordings of calls that started more than this many days ago; null = keep. */
    recordings_days: days,
    /** Delete whole calls (record and recording) older than this; null = keep. */
    calls_days: days,
  }),
  { recordings_days: 30, calls_days: 365 },
);
export type RetentionSettings = z.infer<typeof retentionSettingsSchema>;

export const RETENTION_OFF: RetentionSettings = { recordings_days: null, calls_days: null };

/** How often the server enforces the settings. */
export const RETENTION_INTERVAL_MS = 3_600_000;
