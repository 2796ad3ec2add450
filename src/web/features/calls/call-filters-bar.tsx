import { useQuery } from "@tanstack/react-query";
import { Search, X } from "lucide-react";
import { useEffect, useState } from "react";
import type { Assistant } from "@shared/assistants";
import { CALL_QUERY_MAX_LENGTH, type CallStatusFilter, type CallTypeFilter } from "@shared/call-records";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { api } from "@/lib/api";
import { CallAnalysisFilters } from "./call-analysis-filters";
import type { CallViewFilters } from "./use-call-filters";
import { queryKeys } from "@/lib/query-keys";

const ALL = "all";
const SEARCH_DELAY_MS = 300;

interface CallFiltersBarProps {
  filters: CallViewFilters;
  onChange: (change: Partial<CallViewFilters>) => void;
  onClear: () => void;
  active: boolean;
}

/** Search, assistant, type, status and date range above the table; every change lands in the URL. */
export function CallFiltersBar({ filters, onChange, onClear, active }: CallFiltersBarProps) {
  // The same key and shape as the Assistants page's list, so either page fills the other's cache.
  const assistants = useQuery({ queryKey: queryKeys.assistants, queryFn: () => api<Assistant[]>("/api/assistants") });
  const [text, setText] = useState(filters.q ?? "");
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
    <div className="grid gap-3 rounded-lg border bg-card p-3 sm:grid-cols-2 lg:grid-cols-[minmax(12rem,2fr)_repeat(3,minmax(8rem,1fr))_auto_auto_auto]" role="search" aria-label="Filter calls">
      <div className="relative sm:col-span-2 lg:col-span-1">
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
      <Select value={filters.assistant_id ?? ALL} onValueChange={(v) => onChange({ assistant_id: v === ALL ? undefined : v })}>
        <SelectTrigger aria-label="Assistant">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={ALL}>All assistants</SelectItem>
          {assistants.data?.map((a) => (
            <SelectItem key={a.id} value={a.id}>
              {a.name}
            </SelectItem>
          ))}
          {/* A shared link may name an assistant that is gone: keep the filter visible and removable. */}
          {filters.assistant_id && assistants.data && !assistants.data.some((a) => a.id === filters.assistant_id) && (
            <SelectItem value={filters.assistant_id}>Deleted assistant</SelectItem>
          )}
        </SelectContent>
      </Select>
      <Select value={filters.type ?? ALL} onValueChange={(v) => onChange({ type: v === ALL ? undefined : (v as CallTypeFilter) })}>
        <SelectTrigger aria-label="Type">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={ALL}>All types</SelectItem>
          <SelectItem value="test">Test</SelectItem>
          <SelectItem value="real">Real</SelectItem>
        </SelectContent>
      </Select>
      <Select value={filters.status ?? ALL} onValueChange={(v) => onChange({ status: v === ALL ? undefined : (v as CallStatusFilter) })}>
        <SelectTrigger aria-label="Status">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value={ALL}>All statuses</SelectItem>
          <SelectItem value="in_progress">In progress</SelectItem>
          <SelectItem value="completed">Completed</SelectItem>
          <SelectItem value="error">Error</SelectItem>
        </SelectContent>
      </Select>
      <DateField label="From" value={filters.from} max={filters.to} onChange={(from) => onChange({ from })} />
      <DateField label="To" value={filters.to} min={filters.from} onChange={(to) => onChange({ to })} />
      <Button variant="ghost" onClick={onClear} disabled={!active} className="self-end">
        <X />
        Clear filters
      </Button>
      <div className="sm:col-span-2 lg:col-span-7">
        <CallAnalysisFilters filters={filters} assistants={assistants.data ?? []} onChange={onChange} />
      </div>
    </div>
  );
}

function DateField({ label, value, min, max, onChange }: { label: string; value?: string; min?: string; max?: string; onChange: (day: string | undefined) => void }) {
  const id = `calls-${label.toLowerCase()}`;
  return (
    <div className="flex items-center gap-2">
      <Label htmlFor={id} className="text-xs text-muted-foreground">
        {label}
      </Label>
      <Input id={id} type="date" className="w-[9.5rem]" value={value ?? ""} min={min} max={max} onChange={(e) => onChange(e.target.value || undefined)} />
    </div>
  );
}
