import { E164 } from "@shared/assistants";
import { CAMPAIGN_TEXTS, type InvalidContact } from "@shared/campaigns";
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

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = "";
  let record: string[] = [];
  let quoted = false;
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      record.push(field);
      field = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && src[i + 1] === "\n") i++;
      record.push(field);
      records.push(record);
      record = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  // Blank lines are skipped, as the server skips them.
  return records.filter((r) => r.some((f) => f.trim() !== ""));
}

/** The file as the server will read it: header, rows numbered from 1 after it, the same checks but the do-not-call list. */
export function previewCsv(text: string): CsvPreview {
  const [header, ...data] = parseCsv(text);
  const columns = (header ?? []).map((h) => h.trim());
  const empty = { columns, rows: [], total: 0, variables: [], invalid: [] };
  if (!columns.includes("phone")) return { ...empty, error: CAMPAIGN_TEXTS.phoneColumn };
  if (data.length === 0) return { ...empty, error: CAMPAIGN_TEXTS.noContacts };
  const records = data.map((fields) => Object.fromEntries(columns.map((c, i) => [c, (fields[i] ?? "").trim()])));
  const seen = new Set<string>();
  const invalid: InvalidContact[] = [];
  records.forEach((r, index) => {
    const row = index + 1;
    const raw = r.phone ?? "";
    const phone = raw.replace(/[\s\-().]/g, "");
    if (!E164.test(phone)) invalid.push({ row, phone: raw, reason: CAMPAIGN_TEXTS.invalidPhone });
    else if (seen.has(phone)) invalid.push({ row, phone: raw, reason: CAMPAIGN_TEXTS.duplicate });
    else if (r.timezone && !isTimeZone(r.timezone)) invalid.push({ row, phone: raw, reason: CAMPAIGN_TEXTS.badTimeZone });
    else seen.add(phone);
  });
  return {
    columns,
    rows: records.slice(0, PREVIEW_ROWS),
    total: records.length,
    variables: columns.filter((c) => c !== "phone" && c !== "timezone" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(c)),
    invalid,
    error: null,
  };
}
