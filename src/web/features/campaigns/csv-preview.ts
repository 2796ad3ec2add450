import { CAMPAIGN_TEXTS, readContactPhone, variableColumns, type InvalidContact } from "@shared/campaigns";
import type { PhoneCountryCode } from "@shared/phone-numbers";
import { dialRefusal, type DialPolicy } from "@shared/dial-safety";
import { MAX_VARIABLES } from "@shared/outbound";
import { isTimeZone } from "@shared/variables";

/** How many rows the preview table shows; the checks run over every row. */
export const PREVIEW_ROWS = 10;

export interface CsvPreview {
  columns: string[];
  /** The first rows, by column name. */
  rows: Record<string, string>[];
  total: number;
  /** The columns that become variables of the call (not phone, not timezone). */
  variables: string[];
  /** What the browser can see already (the server adds do-not-call hits), in the server's words. */
  invalid: InvalidContact[];
  /** A problem with the whole file (no phone column, no rows). */
  error: string | null;
}

/** A file the server's CSV reader would refuse: the line and its words. */
export class CsvReadError extends Error {}

/**
 * RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. Strict where the
 * server's reader is: a quote inside an unquoted field, text after a closing quote and an
 * unclosed quote are errors (CsvReadError, in the server's words).
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  let closed = false;
  let line = 1;
  let quoteLine = 1;
  const fail = (why: string, at = line) => {
    throw new CsvReadError(CAMPAIGN_TEXTS.unreadable(at, why));
  };
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (ch === "\n") line++;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
        closed = true;
      } else field += ch;
    } else if (ch === ",") {
      record.push(field);
      field = "";
      closed = false;
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && src[i + 1] === "\n") {
        i++;
        line++;
      }
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      closed = false;
    } else if (closed) {
      if (ch.trim() !== "") fail(CAMPAIGN_TEXTS.textAfterQuote);
    } else if (ch === '"') {
      if (field.trim() !== "") fail(CAMPAIGN_TEXTS.quoteInField);
      field = "";
      quoted = true;
      quoteLine = line;
    } else field += ch;
  }
  if (quoted) fail(CAMPAIGN_TEXTS.unclosedQuote, quoteLine);
  if (field !== "" || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  // Blank lines are skipped, as the server skips them.
  return records.filter((r) => r.some((f) => f.trim() !== ""));
}

/**
 * The file as the server will read it: header, rows numbered from 1 after it, the same checks but
 * the do-not-call list (the dial-safety rules under `policy`, the organisation's own).
 */
export function previewCsv(text: string, policy: DialPolicy = { ownNumbers: [], allowed: [] }, defaultCountry: PhoneCountryCode | null = null): CsvPreview {
  let parsed: string[][];
  try {
    parsed = parseCsv(text);
  } catch (err) {
    if (err instanceof CsvReadError) return { columns: [], rows: [], total: 0, variables: [], invalid: [], error: err.message };
    throw err;
  }
  const [header, ...data] = parsed;
  const columns = (header ?? []).map((h) => h.trim());
  const variables = variableColumns(columns);
  const empty = { columns, rows: [], total: 0, variables: [], invalid: [] };
  if (!columns.includes("phone")) return { ...empty, error: CAMPAIGN_TEXTS.phoneColumn };
  if (variables.length > MAX_VARIABLES) return { ...empty, error: CAMPAIGN_TEXTS.tooManyVariables(variables.length) };
  if (data.length === 0) return { ...empty, error: CAMPAIGN_TEXTS.noContacts };
  const nul = data.findIndex((fields) => fields.some((f) => f.includes("\u0000")));
  if (nul >= 0) return { ...empty, error: CAMPAIGN_TEXTS.nulCharacter(nul + 1) };
  const records = data.map((fields) => Object.fromEntries(columns.map((c, i) => [c, (fields[i] ?? "").trim()])));
  const seen = new Set<string>();
  const invalid: InvalidContact[] = [];
  records.forEach((r, index) => {
    const row = index + 1;
    const raw = r.phone ?? "";
    const read = readContactPhone(raw, defaultCountry);
    const phone = "phone" in read ? read.phone : "";
    if ("reason" in read) invalid.push({ row, phone: raw, reason: read.reason });
    else if (seen.has(phone)) invalid.push({ row, phone: raw, reason: CAMPAIGN_TEXTS.duplicate });
    else if (dialRefusal(phone, policy)) invalid.push({ row, phone: raw, reason: dialRefusal(phone, policy)!.reason });
    else if (r.timezone && !isTimeZone(r.timezone)) invalid.push({ row, phone: raw, reason: CAMPAIGN_TEXTS.badTimeZone });
    else seen.add(phone);
  });
  return {
    columns,
    rows: records.slice(0, PREVIEW_ROWS),
    total: records.length,
    variables,
    invalid,
    error: null,
  };
}
