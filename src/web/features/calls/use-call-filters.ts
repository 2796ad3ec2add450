import { useCallback, useMemo } from "react";
import { useSearchParams } from "react-router";
import { CALL_DIRECTIONS, type CallDirection } from "@shared/outbound";
import { CALL_STATUS_FILTERS, callFiltersQuery, type CallFilters, type CallStatusFilter, type CallTypeFilter } from "@shared/call-records";

/**
 * The page's filters live in the URL (?assistant_id=&assistant_version=&type=&status=&from=&to=&q=), so a view can be
 * shared and survives a reload. Dates are days (YYYY-MM-DD, both included) in the URL, and become
 * instants at the browser's local midnight for the API.
 */
export interface CallViewFilters {
  assistant_id?: string;
  /** A version number or "draft" (from an assistant's History panel). */
  assistant_version?: string;
  type?: CallTypeFilter;
  status?: CallStatusFilter;
  direction?: CallDirection;
  from?: string;
  to?: string;
  q?: string;
  /** The analysis's success value: pass, fail or a category. */
  success?: string;
  /** Extracted data: `{ order_id: "42" }` (equals) or `{ "note.contains": "late" }`, as data.<key> in the URL. */
  data?: Record<string, string>;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const pick = <T extends string>(value: string | null, allowed: readonly T[]) => (allowed.includes(value as T) ? (value as T) : undefined);

function localMidnight(day: string, plusDays = 0): string | undefined {
  if (!DAY.test(day)) return undefined;
  const [y, m, d] = day.split("-").map(Number);
  const date = new Date(y!, m! - 1, d! + plusDays);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** Whether the view's "From" day is after its "To" day (the range is then ignored, and the page says so). */
export const isInvertedRange = (view: CallViewFilters): boolean => Boolean(view.from && view.to && view.from > view.to);

/** The view's filters as the API's (dates → instants; an inverted range is ignored, see isInvertedRange). */
export function toApiFilters(view: CallViewFilters): CallFilters {
  const from = view.from ? localMidnight(view.from) : undefined;
  const to = view.to ? localMidnight(view.to, 1) : undefined;
  const inverted = isInvertedRange(view);
  return {
    assistant_id: view.assistant_id,
    assistant_version: view.assistant_version,
    type: view.type,
    status: view.status,
    direction: view.direction,
    q: view.q,
    from: inverted ? undefined : from,
    to: inverted ? undefined : to,
    success: view.success,
    data: view.data,
  };
}

function dataFilters(params: URLSearchParams): Record<string, string> | undefined {
  const data = Object.fromEntries([...params].filter(([key, value]) => key.startsWith("data.") && value !== "").map(([key, value]) => [key.slice(5), value]));
  return Object.keys(data).length > 0 ? data : undefined;
}

export function useCallFilters() {
  const [params, setParams] = useSearchParams();
  const filters = useMemo<CallViewFilters>(
    () => ({
      assistant_id: params.get("assistant_id") || undefined,
      assistant_version: /^(draft|[1-9]\d{0,8})$/.test(params.get("assistant_version") ?? "") ? params.get("assistant_version")! : undefined,
      type: pick(params.get("type"), ["test", "real"] as const),
      status: pick(params.get("status"), CALL_STATUS_FILTERS),
      direction: pick(params.get("direction"), CALL_DIRECTIONS),
      from: DAY.test(params.get("from") ?? "") ? params.get("from")! : undefined,
      to: DAY.test(params.get("to") ?? "") ? params.get("to")! : undefined,
      q: params.get("q")?.trim() || undefined,
      success: params.get("success")?.trim() || undefined,
      data: dataFilters(params),
    }),
    [params],
  );
  const setFilters = useCallback(
    (change: Partial<CallViewFilters>) => {
      // Typing a search replaces the history entry; choosing a filter adds one (Back undoes it).
      const next = new URLSearchParams(callFiltersQuery({ ...filters, ...change }));
      setParams(next, { replace: Object.keys(change).length === 1 && "q" in change });
    },
    [filters, setParams],
  );
  const active = Object.values(filters).some((v) => v !== undefined);
  return { filters, setFilters, clear: () => setParams(new URLSearchParams()), active };
}
