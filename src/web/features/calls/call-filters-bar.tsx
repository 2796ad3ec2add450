import { useQuery } from "@tanstack/react-query";
import { Search, X } from "lucide-react";
import { useEffect, useState } from "react";
import type { Assistant } from "@shared/assistants";
import { CALL_MESSAGES, CALL_QUERY_MAX_LENGTH } from "@shared/call-records";
import { versionLabel } from "@shared/versions";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { OptionSelect } from "@/components/option-select";
import type { SelectOption } from "@/components/select-field";
import { apiList } from "@/lib/api";
import { CALL_DIRECTION_LABELS, CALL_DIRECTIONS } from "@shared/outbound";
import { CallAnalysisFilters } from "./call-analysis-filters";
import { isInvertedRange, type CallViewFilters } from "./use-call-filters";
import { queryKeys } from "@/lib/query-keys";

const ALL = "all";
const SEARCH_DELAY_MS = 300;
const RANGE_ERROR_ID = "calls-range-error";
const WIDE = "min-w-[9rem] flex-[1_1_9rem]";
const TYPE_OPTIONS = [
  { value: ALL, label: "All types" },
  { value: "test", label: "Test" },
  { value: "real", label: "Real" },
];
const DIRECTION_OPTIONS = [{ value: ALL, label: "All directions" }, ...CALL_DIRECTIONS.map((d) => ({ value: d, label: CALL_DIRECTION_LABELS[d] }))];
const STATUS_OPTIONS = [
  { value: ALL, label: "All statuses" },
  { value: "in_progress", label: "In progress" },
  { value: "completed", label: "Completed" },
  { value: "error", label: "Error" },
];

interface CallFiltersBarProps {
  filters: CallViewFilters;
  onChange: (change: Partial<CallViewFilters>) => void;
  onClear: () => void;
  active: boolean;
}

/** Search, assistant, type, status and date range above the table; every change lands in the URL. */
export function CallFiltersBar({ filters, onChange, onClear, active }: CallFiltersBarProps) {
  // The same key and shape as the Assistants page's list, so either page fills the other's cache.
  const assistants = useQuery({ queryKey: queryKeys.assistants, queryFn: () => apiList<Assistant>("/api/assistants") });
  const [text, setText] = useState(filters.q ?? "");
  const inverted = isInvertedRange(filters);
  // The URL changed under the field (Back, Clear filters): show what it says.
  const [shownQ, setShownQ] = useState(filters.q);
  if (filters.q !== shownQ) {
    setShownQ(filters.q);
    if ((filters.q ?? "") !== text.trim()) setText(filters.q ?? "");
  }
  useEffect(() => {
    const q = text.trim() || undefined;
    if (q === filters.q) return;
    const timer = setTimeout(() => onChange({ q }), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text, filters.q, onChange]);

  return (
    // Wraps onto as many lines as the width needs: nothing is cut off at 1280 px or on a phone.
    <div className="flex flex-wrap items-center gap-3 rounded-lg border bg-card p-3" role="search" aria-label="Filter calls">
      <div className="relative min-w-[14rem] flex-[2_1_16rem]">
        <Search className="pointer-events-none absolute top-2.5 left-2.5 size-4 text-muted-foreground" aria-hidden="true" />
        <Input
          type="search"
          aria-label="Search calls"
          placeholder="Search transcripts, summaries or caller number"
          className="pl-8"
          maxLength={CALL_QUERY_MAX_LENGTH}
          value={text}
          onChange={(e) => setText(e.target.value)}
        />
      </div>
      <OptionSelect
        aria-label="Assistant"
        className={WIDE}
        value={filters.assistant_id ?? ALL}
        onValueChange={(v) => onChange({ assistant_id: v === ALL ? undefined : v, assistant_version: undefined })}
        options={[
          { value: ALL, label: "All assistants" },
          ...(assistants.data ?? []).map((a) => ({ value: a.id, label: a.name })),
          // A shared link may name an assistant that is gone: keep the filter visible and removable.
          ...(filters.assistant_id && assistants.data && !assistants.data.some((a) => a.id === filters.assistant_id)
            ? [{ value: filters.assistant_id, label: "Deleted assistant" }]
            : []),
        ]}
      />
      <FilterSelect label="Type" field="type" className={WIDE} options={TYPE_OPTIONS} filters={filters} onChange={onChange} />
      <FilterSelect label="Direction" field="direction" options={DIRECTION_OPTIONS} filters={filters} onChange={onChange} />
      <FilterSelect label="Status" field="status" className={WIDE} options={STATUS_OPTIONS} filters={filters} onChange={onChange} />
      <div className="flex flex-wrap items-center gap-3">
        <DateField label="From" value={filters.from} max={filters.to} invalid={inverted} onChange={(from) => onChange({ from })} />
        <DateField label="To" value={filters.to} min={filters.from} invalid={inverted} onChange={(to) => onChange({ to })} />
      </div>
      {filters.assistant_version && (
        <Button variant="outline" onClick={() => onChange({ assistant_version: undefined })} aria-label="Remove the version filter">
          {versionLabel(filters.assistant_version === "draft" ? null : Number(filters.assistant_version))}
          <X />
        </Button>
      )}
      <Button variant="ghost" onClick={onClear} disabled={!active}>
        <X />
        Clear filters
      </Button>
      {inverted && (
        <p role="alert" id={RANGE_ERROR_ID} className="basis-full text-sm text-destructive">
          {CALL_MESSAGES.invertedRange}
        </p>
      )}
      <div className="basis-full">
        <CallAnalysisFilters filters={filters} assistants={assistants.data ?? []} onChange={onChange} />
      </div>
    </div>
  );
}

/** A select over one filter of a fixed list, whose first option (ALL) clears it. */
function FilterSelect({
  label,
  field,
  className,
  options,
  filters,
  onChange,
}: Pick<CallFiltersBarProps, "filters" | "onChange"> & { label: string; field: "type" | "direction" | "status"; className?: string; options: SelectOption[] }) {
  return (
    <OptionSelect
      aria-label={label}
      className={className}
      value={filters[field] ?? ALL}
      onValueChange={(v) => onChange({ [field]: v === ALL ? undefined : v })}
      options={options}
    />
  );
}

function DateField({
  label,
  value,
  min,
  max,
  invalid,
  onChange,
}: {
  label: string;
  value?: string;
  min?: string;
  max?: string;
  invalid: boolean;
  onChange: (day: string | undefined) => void;
}) {
  const id = `calls-${label.toLowerCase()}`;
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <Input
        id={id}
        type="date"
        className="w-[9.5rem]"
        value={value ?? ""}
        min={min}
        max={max}
        aria-invalid={invalid || undefined}
        aria-describedby={invalid ? RANGE_ERROR_ID : undefined}
        onChange={(e) => onChange(e.target.value || undefined)}
      />
    </div>
  );
}
