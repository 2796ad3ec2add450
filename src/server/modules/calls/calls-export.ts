/**
 * GET /api/calls/export.csv: the filtered calls as CSV, read in keyset pages and written as they
 * come, so an export of a year of calls never sits whole in memory (or holds one long query open).
 */
import type { CallFilters, CallSummary } from "../../../shared/call-records.ts";
import type { Db } from "../../db/client.ts";
import type { CallAnalysis } from "../../../shared/analysis.ts";
import { analysisFieldNames, listCallSummaries } from "./calls-history.repo.ts";
import type { Keyset } from "../../http/pages.ts";
import { toCallAnalysis, toCallSummary } from "./calls-wire.ts";
import { csvField } from "../../http/csv-field.ts";

export const EXPORT_BATCH = 1000;

const HEADER = ["id", "start_time", "end_time", "type", "customer", "assistant", "called_number", "duration_seconds", "cost", "status", "ended_reason", "has_recording", "direction", "assistant_version", "campaign_id", "summary", "success", "success_reason"];

const cell = (value: unknown): string => (value === null || value === undefined ? "" : typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value));

function row(call: CallSummary, analysis: CallAnalysis | null, fields: readonly string[]): string[] {
  const done = analysis?.status === "done" ? analysis : null;
  return [
    call.id,
    call.start_time,
    call.end_time ?? "",
    call.type,
    call.customer ?? "",
    call.assistant_name ?? "",
    call.called_number ?? "",
    call.duration_ms === null ? "" : (call.duration_ms / 1000).toFixed(1),
    // A phone call's real cost is fractions of a cent: four decimals, the tariff two.
    call.cost === null ? "" : call.cost.toFixed(call.cost_basis === "provider" ? 4 : 2),
    call.status,
    call.ended_reason ?? "",
    call.has_recording ? "yes" : "no",
    call.direction,
    call.assistant_version === null ? "" : String(call.assistant_version),
    call.campaign_id ?? "",
    done?.summary ?? "",
    cell(done?.success?.value),
    done?.success?.reason ?? "",
    ...fields.map((name) => cell(done?.data[name])),
  ];
}

const line = (fields: string[]) => `${fields.map(csvField).join(",")}\r\n`;

export async function* exportCallsCsv(db: Db, organizationId: string, customer: string | null, filters: CallFilters): AsyncGenerator<string> {
  // One column per extracted field of the assistants in the export (all the owner's, or the filtered one's).
  const fields = await analysisFieldNames(db, organizationId, filters.assistant_id);
  yield line([...HEADER, ...fields.map((name) => `data.${name}`)]);
  let after: Keyset | undefined;
  for (;;) {
    const rows = await listCallSummaries(db, organizationId, filters, EXPORT_BATCH, after);
    if (rows.length === 0) return;
    yield rows.map((r) => line(row(toCallSummary(r, customer), toCallAnalysis(r.analysis), fields))).join("");
    if (rows.length < EXPORT_BATCH) return;
    after = rows[rows.length - 1]!.page_key;
  }
}
