import { format } from "date-fns";
import { Download, PhoneCall, RefreshCw, SearchX } from "lucide-react";
import { useMemo, useState } from "react";
import { Link, useSearchParams } from "react-router";
import { CALL_MESSAGES, callFiltersQuery } from "@shared/call-records";
import { EmptyState } from "@/components/page-states";
import { Button } from "@/components/ui/button";
import { NextPageButton } from "@/components/next-page-button";
import { Spinner } from "@/components/ui/spinner";
import { cn } from "@/lib/utils";
import { CallDetailsSheet } from "./call-details-sheet";
import { CallFiltersBar } from "./call-filters-bar";
import { CallStatsCards } from "./call-stats-cards";
import { useCan } from "@/lib/use-membership";
import { CallsTable } from "./calls-table";
import { isInvertedRange, toApiFilters, useCallFilters, type CallViewFilters } from "./use-call-filters";
import { useCall, useCallStats, useCalls } from "./use-calls";

function periodText(view: CallViewFilters): string {
  const { from, to } = view;
  if (isInvertedRange(view)) return "All time (the date range is invalid)";
  const day = (d: string) => format(new Date(`${d}T00:00:00`), "MMM d, yyyy");
  if (from && to) return `${day(from)} – ${day(to)}`;
  if (from) return `Since ${day(from)}`;
  if (to) return `Until ${day(to)}`;
  return "All time";
}

export function CallsPage() {
  const { filters, setFilters, clear, active } = useCallFilters();
  const apiFilters = useMemo(() => toApiFilters(filters), [filters]);
  const calls = useCalls(apiFilters);
  const mayExport = useCan("supervise");
  const stats = useCallStats(apiFilters);
  // `?call=<id>` (a campaign's contact links here) opens that call's details, listed or not.
  const [params, setParams] = useSearchParams();
  const linked = params.get("call");
  const [panel, setPanelState] = useState<{ open: boolean; id: string | null }>({ open: linked !== null, id: linked });
  // An open call's link is the page's address (to copy or share); closing it takes it away again.
  const setPanel = (next: { open: boolean; id: string | null } | ((p: { open: boolean; id: string | null }) => { open: boolean; id: string | null })) => {
    const value = typeof next === "function" ? next(panel) : next;
    setPanelState(value);
    setParams(
      (p) => {
        const copy = new URLSearchParams(p);
        if (value.open && value.id) copy.set("call", value.id);
        else copy.delete("call");
        return copy;
      },
      { replace: true },
    );
  };

  const list = useMemo(() => calls.data?.pages.flatMap((p) => p.data) ?? [], [calls.data]);
  // Kept while the panel is open even if a filter change drops the row from the list.
  const [selected, setSelected] = useState<(typeof list)[number] | null>(null);
  const fresh = list.find((c) => c.id === panel.id);
  if (fresh && fresh !== selected) setSelected(fresh);
  const unlisted = useCall(panel.open && !fresh && panel.id === linked ? linked : null);
  if (!fresh && unlisted.data && unlisted.data.id === panel.id && unlisted.data !== selected) setSelected(unlisted.data);
  const live = list.some((c) => !c.end_time);
  // Only a refresh the user asked for spins its icon; the polling while calls are live stays quiet.
  const [refreshing, setRefreshing] = useState(false);
  const refresh = () => {
    setRefreshing(true);
    void Promise.all([calls.refetch(), stats.refetch()]).finally(() => setRefreshing(false));
  };
  const exportHref = `/api/calls/export.csv?${callFiltersQuery({ ...apiFilters })}`;
  const nothingAtAll = !active && list.length === 0;

  return (
    // min-w-0 on the grid's items: a wide child scrolls inside itself instead of widening the page.
    <section className="mx-auto grid w-full max-w-6xl gap-6 [&>*]:min-w-0">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
          <p className="text-sm text-muted-foreground">Every call your assistants have taken: transcripts, recordings and costs.</p>
        </div>
        {!calls.isPending && !nothingAtAll && (
          <div className="flex items-center gap-3">
            {live && (
              <span className="flex items-center gap-2 text-xs font-medium text-sky-700" data-testid="live-indicator">
                <span className="relative flex size-2" aria-hidden="true">
                  <span className="absolute inline-flex size-full animate-ping rounded-full bg-sky-500 opacity-75 motion-reduce:animate-none" />
                  <span className="relative inline-flex size-2 rounded-full bg-sky-500" />
                </span>
                Live
              </span>
            )}
            {calls.isError && <span className="text-xs text-muted-foreground">Couldn&apos;t refresh</span>}
            {mayExport && (
              <Button variant="outline" size="sm" asChild>
                {/* A plain download: the server streams the file, the browser saves it. */}
                <a href={exportHref} download>
                  <Download />
                  Export CSV
                </a>
              </Button>
            )}
            <Button variant="outline" size="sm" onClick={refresh} disabled={refreshing}>
              <RefreshCw className={cn(refreshing && "animate-spin motion-reduce:animate-none")} />
              Refresh
            </Button>
          </div>
        )}
      </div>

      {calls.isPending ? (
        <div className="flex items-center justify-center gap-3 rounded-lg border px-6 py-20 text-sm text-muted-foreground">
          <Spinner label={CALL_MESSAGES.loading} className="size-5" />
          <span>{CALL_MESSAGES.loading}</span>
        </div>
      ) : calls.isError && list.length === 0 ? (
        // Spec §8: fetch failures go to the console only; the page just offers another try.
        <div className="flex flex-col items-center gap-3 rounded-lg border border-dashed px-6 py-16 text-center text-sm text-muted-foreground">
          <p>Call history isn&apos;t available right now.</p>
          <Button variant="outline" size="sm" onClick={refresh} disabled={refreshing}>
            <RefreshCw className={cn(refreshing && "animate-spin motion-reduce:animate-none")} />
            Retry
          </Button>
        </div>
      ) : nothingAtAll ? (
        <EmptyState
          icon={PhoneCall}
          title={CALL_MESSAGES.empty}
          action={
            <Button asChild variant="outline">
              <Link to="/assistants">
                <PhoneCall />
                Make a test call
              </Link>
            </Button>
          }
        >
          Every call an assistant takes — test calls from your browser and calls to your phone numbers — is listed here with its
          transcript, recording and cost.
        </EmptyState>
      ) : (
        <>
          <CallStatsCards
            stats={stats.data}
            from={isInvertedRange(filters) ? undefined : filters.from}
            to={isInvertedRange(filters) ? undefined : filters.to}
            period={periodText(filters)}
          />
          <CallFiltersBar filters={filters} onChange={setFilters} onClear={clear} active={active} />
          {list.length === 0 ? (
            <div className="flex flex-col items-center gap-3 rounded-lg border border-dashed px-6 py-12 text-center text-sm text-muted-foreground">
              <SearchX className="size-6" aria-hidden="true" />
              <p>{CALL_MESSAGES.empty}</p>
              <Button variant="outline" size="sm" onClick={clear}>
                Clear filters
              </Button>
            </div>
          ) : (
            <div className={cn("grid gap-3 transition-opacity", calls.isPlaceholderData && "opacity-60")}>
              <CallsTable calls={list} selectedId={panel.open ? panel.id : null} onOpen={(c) => setPanel({ open: true, id: c.id })} />
              <div className="flex items-center justify-between gap-3 text-sm text-muted-foreground">
                <span data-testid="calls-shown">
                  {list.length.toLocaleString("en-US")} {list.length === 1 ? "call" : "calls"} shown{calls.hasNextPage ? "; older calls follow" : ""}
                </span>
                <NextPageButton pages={calls} size="sm" label="Load more" busyLabel="Loading..." />
              </div>
            </div>
          )}
        </>
      )}

      <CallDetailsSheet summary={selected} open={panel.open && selected !== null} onOpenChange={(open) => setPanel((p) => ({ ...p, open }))} />
    </section>
  );
}
