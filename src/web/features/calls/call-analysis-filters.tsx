import { useEffect, useState } from "react";
import type { Assistant } from "@shared/assistants";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import type { CallViewFilters } from "./use-call-filters";

const ALL = "all";
const NONE = "none";
const TYPING_DELAY_MS = 300;

/**
 * Filters on the post-call analysis: the success value (pass, fail, or a category of any
 * assistant), and one extracted field equal to or containing a text.
 */
export function CallAnalysisFilters({ filters, assistants, onChange }: { filters: CallViewFilters; assistants: Assistant[]; onChange: (change: Partial<CallViewFilters>) => void }) {
  const categories = [...new Set(assistants.flatMap((a) => a.analysis?.success.categories ?? []))];
  const fieldNames = [...new Set(assistants.flatMap((a) => a.analysis?.fields.map((f) => f.name) ?? []))];
  const [current] = Object.entries(filters.data ?? {});
  const [key, value] = current ?? ["", ""];
  const urlOp = key.endsWith(".contains") ? "contains" : "equals";
  const urlField = urlOp === "contains" ? key.slice(0, -".contains".length) : key;
  // What is picked but not yet in the URL (a field chosen before its value is typed).
  const [draft, setDraft] = useState({ field: urlField, op: urlOp, text: value });
  const [shown, setShown] = useState(key + value);
  if (key + value !== shown) {
    setShown(key + value);
    setDraft({ field: urlField, op: urlOp, text: value });
  }
  const { field, op, text } = draft;
  const contains = op === "contains";
  useEffect(() => {
    const wanted = field && text.trim() ? { [contains ? `${field}.contains` : field]: text.trim() } : undefined;
    if (JSON.stringify(wanted ?? null) === JSON.stringify(filters.data ?? null)) return;
    const timer = setTimeout(() => onChange({ data: wanted }), TYPING_DELAY_MS);
    return () => clearTimeout(timer);
  }, [field, contains, text, filters.data, onChange]);

  return (
    <div className="flex flex-wrap items-center gap-3">
      <Select value={filters.success ?? ALL} onValueChange={(v) => onChange({ success: v === ALL ? undefined : v })}>
        <SelectTrigger aria-label="Success" className="w-[11rem]">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={ALL}>Any outcome</SelectItem>
          <SelectItem value="pass">Pass</SelectItem>
          <SelectItem value="fail">Fail</SelectItem>
          {categories.map((c) => (
            <SelectItem key={c} value={c}>
              {c}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
      {fieldNames.length > 0 && (
        <>
          <Select value={field || NONE} onValueChange={(name) => setDraft({ ...draft, field: name === NONE ? "" : name })}>
            <SelectTrigger aria-label="Extracted field" className="w-[11rem]">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value={NONE}>Any data</SelectItem>
              {fieldNames.map((n) => (
                <SelectItem key={n} value={n}>
                  {n}
                </SelectItem>
              ))}
            </SelectContent>
          </Select>
          <Select value={contains ? "contains" : "equals"} disabled={!field} onValueChange={(next) => setDraft({ ...draft, op: next === "contains" ? "contains" : "equals" })}>
            <SelectTrigger aria-label="Match" className="w-[8rem]">
              <SelectValue />
            </SelectTrigger>
            <SelectContent>
              <SelectItem value="equals">equals</SelectItem>
              <SelectItem value="contains">contains</SelectItem>
            </SelectContent>
          </Select>
          <Input aria-label="Field value" placeholder="Value" className="w-[10rem]" disabled={!field} value={text} onChange={(e) => setDraft({ ...draft, text: e.target.value })} />
        </>
      )}
    </div>
  );
}
