import { useEffect, useState } from "react";
import type { Assistant } from "@shared/assistants";
import { Input } from "@/components/ui/input";
import { OptionSelect } from "@/components/option-select";
import type { CallViewFilters } from "./use-call-filters";

const ALL = "all";
const NONE = "none";
const TYPING_DELAY_MS = 300;
const MATCH_OPTIONS = [
  { value: "equals", label: "equals" },
  { value: "contains", label: "contains" },
];

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
      <OptionSelect
        aria-label="Success"
        className="w-[11rem]"
        value={filters.success ?? ALL}
        onValueChange={(v) => onChange({ success: v === ALL ? undefined : v })}
        options={[{ value: ALL, label: "Any outcome" }, { value: "pass", label: "Pass" }, { value: "fail", label: "Fail" }, ...categories.map((c) => ({ value: c, label: c }))]}
      />
      {fieldNames.length > 0 && (
        <>
          <OptionSelect
            aria-label="Extracted field"
            className="w-[11rem]"
            value={field || NONE}
            onValueChange={(name) => setDraft({ ...draft, field: name === NONE ? "" : name })}
            options={[{ value: NONE, label: "Any data" }, ...fieldNames.map((n) => ({ value: n, label: n }))]}
          />
          <OptionSelect
            aria-label="Match"
            className="w-[8rem]"
            value={contains ? "contains" : "equals"}
            disabled={!field}
            onValueChange={(next) => setDraft({ ...draft, op: next === "contains" ? "contains" : "equals" })}
            options={MATCH_OPTIONS}
          />
          <Input aria-label="Field value" placeholder="Value" className="w-[10rem]" disabled={!field} value={text} onChange={(e) => setDraft({ ...draft, text: e.target.value })} />
        </>
      )}
    </div>
  );
}
