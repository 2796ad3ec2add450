/**
 * A campaign's contacts from CSV: streamed through csv-parse and written in batches of 1,000,
 * so the rows are never held as objects all at once (only the phone numbers seen, for the
 * duplicate check). A `phone` column is required; an optional `timezone` column gives the
 * contact's own zone; every other column becomes a variable of the contact's call.
 * A national number is read in the default country when one is given.
 * Invalid rows (not E.164, duplicate, refused by a dial-safety rule, on the do-not-call list,
 * unknown time zone) are reported
 * by data row (1 = the first after the header) and not stored.
 */
import { Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import { CAMPAIGN_TEXTS, MAX_CAMPAIGN_CONTACTS, readContactPhone, variableColumns, type InvalidContact } from "../../../shared/campaigns.ts";
import type { PhoneCountryCode } from "../../../shared/phone-numbers.ts";
import { MAX_VARIABLES } from "../../../shared/outbound.ts";
import { isTimeZone } from "../../../shared/variables.ts";
import { badRequest } from "../../errors.ts";
import type { NewContact } from "./campaigns.repo.ts";

const BATCH = 1000;
/** The invalid rows reported in full; past this many only the count grows. */
const MAX_REPORTED = 1000;

export interface ImportResult {
  valid: number;
  invalid: InvalidContact[];
  invalidCount: number;
}

export async function importContacts(
  source: string | Readable,
  deps: {
    dncListed(phones: string[]): Promise<Set<string>>;
    /** Why a dial-safety rule refuses the number (shared/dial-safety.ts), or null. */
    refusal(phone: string): string | null;
    write(batch: NewContact[]): Promise<void>;
    /** How national numbers are read ("07700 900112" with GB); null: E.164 only. */
    defaultCountry?: PhoneCountryCode | null;
  },
): Promise<ImportResult> {
  const input = typeof source === "string" ? Readable.from([source]) : source;
  // A row longer than this is not a contact: refused in the parser's words rather than buffered.
  const parser = parse({ columns: (header: string[]) => header.map((h) => h.trim()), skip_empty_lines: true, trim: true, bom: true, relax_column_count: true, max_record_size: 64 * 1024 });
  // pipe() does not pass the source's errors on (an upload cut short, too large): the parser fails with them.
  input.once("error", (err) => parser.destroy(err));
  input.pipe(parser);
  const seen = new Set<string>();
  const result: ImportResult = { valid: 0, invalid: [], invalidCount: 0 };
  const reject = (row: number, phone: string, reason: string) => {
    result.invalidCount += 1;
    if (result.invalid.length < MAX_REPORTED) result.invalid.push({ row, phone, reason });
  };
  let batch: NewContact[] = [];
  const flush = async () => {
    const listed = await deps.dncListed(batch.map((c) => c.phone));
    const keep = batch.filter((c) => !listed.has(c.phone));
    for (const c of batch) if (listed.has(c.phone)) reject(c.row, c.phone, CAMPAIGN_TEXTS.dnc);
    await deps.write(keep);
    result.valid += keep.length;
    batch = [];
  };
  let row = 0;
  let checkedHeader = false;
  let variableNames = new Set<string>();
  try {
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    if (!checkedHeader) {
      if (!Object.hasOwn(record, "phone")) throw badRequest(CAMPAIGN_TEXTS.phoneColumn, "invalid_csv");
      // The API's cap on a call's variables holds for a CSV's columns too.
      variableNames = new Set(variableColumns(Object.keys(record)));
      if (variableNames.size > MAX_VARIABLES) throw badRequest(CAMPAIGN_TEXTS.tooManyVariables(variableNames.size), "too_many_variables");
      checkedHeader = true;
    }
    row += 1;
    // Text columns cannot hold U+0000: refused as the file's fault rather than failing the write.
    if (Object.values(record).some((v) => v?.includes("\u0000"))) throw badRequest(CAMPAIGN_TEXTS.nulCharacter(row), "invalid_csv");
    if (row > MAX_CAMPAIGN_CONTACTS) throw badRequest(CAMPAIGN_TEXTS.tooMany, "too_many_contacts");
    const { phone: raw = "", timezone = "", ...rest } = record;
    const read = readContactPhone(raw, deps.defaultCountry ?? null);
    if ("reason" in read) {
      reject(row, raw, read.reason);
      continue;
    }
    const { phone } = read;
    if (seen.has(phone)) {
      reject(row, raw, CAMPAIGN_TEXTS.duplicate);
      continue;
    }
    const refused = deps.refusal(phone);
    if (refused) {
      reject(row, raw, refused);
      continue;
    }
    if (timezone && !isTimeZone(timezone)) {
      reject(row, raw, CAMPAIGN_TEXTS.badTimeZone);
      continue;
    }
    seen.add(phone);
    const variables: Record<string, string> = {};
    for (const [k, v] of Object.entries(rest)) if (variableNames.has(k)) variables[k] = v ?? "";
    batch.push({ row, phone, timezone: timezone || null, variables });
    if (batch.length >= BATCH) await flush();
  }
  } catch (err) {
    // csv-parse's own errors (a stray or unclosed quote, ...) are the file's fault, said in words.
    if (err instanceof CsvError) throw badRequest(CAMPAIGN_TEXTS.unreadable(parser.info.lines, csvProblem(err)), "invalid_csv");
    throw err;
  }
  if (!checkedHeader) throw badRequest(CAMPAIGN_TEXTS.noContacts, "invalid_csv");
  if (batch.length > 0) await flush();
  // Do-not-call hits are found a batch at a time; the report reads by row.
  result.invalid.sort((a, b) => a.row - b.row);
  return result;
}

function csvProblem(err: CsvError): string {
  switch (err.code) {
    case "INVALID_OPENING_QUOTE":
      return CAMPAIGN_TEXTS.quoteInField;
    case "CSV_QUOTE_NOT_CLOSED":
      return CAMPAIGN_TEXTS.unclosedQuote;
    case "CSV_INVALID_CLOSING_QUOTE":
      return CAMPAIGN_TEXTS.textAfterQuote;
    default:
      return err.message;
  }
}
