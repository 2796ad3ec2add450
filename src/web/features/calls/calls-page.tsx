import { PhoneCall, RefreshCw } from "lucide-react";
import { useState } from "react";
import { Link } from "react-router";
import { CALL_MESSAGES } from "@shared/call-records";
import { EmptyState } from "@/components/page-states";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";
import { useSession } from "@/features/auth/session";
import { cn } from "@/lib/utils";
import { CallDetailsSheet } from "./call-details-sheet";
import { CallsTable } from "./calls-table";
import { useCalls } from "./use-calls";

export function CallsPage() {
  const calls = useCalls();
  const { data: user } = useSession();
  const [panel, setPanel] = useState<{ open: boolean; id: string | null }>({ open: false, id: null });

  const list = calls.data ?? [];
  const selected = list.find((c) => c.id === panel.id) ?? null;
  const live = list.some((c) => !c.end_time);
  const customer = user?.name || user?.email || "You";
  const refetch = () => void calls.refetch();
  // Only a refresh the user asked for spins its icon; the polling while calls are live stays quiet.
  const [refreshing, setRefreshing] = useState(false);
  const refresh = () => {
    setRefreshing(true);
    void calls.refetch().finally(() => setRefreshing(false));
  };

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">Calls</h1>
          <p className="text-sm text-muted-foreground">Every call your assistants have taken: transcripts, recordings and costs.</p>
        </div>
        {list.length > 0 && (
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
      ) : list.length === 0 ? (
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
        <CallsTable calls={list} customer={customer} selectedId={panel.open ? panel.id : null} onOpen={(c) => setPanel({ open: true, id: c.id })} />
      )}

      <CallDetailsSheet
        call={selected}
        open={panel.open && selected !== null}
        onOpenChange={(open) => setPanel((p) => ({ ...p, open }))}
        onRecordingUnavailable={refetch}
      />
    </section>
  );
}
