import { Lock, Radio } from "lucide-react";
import { can, ROLE_LABELS } from "@shared/roles";
import { useMembership } from "@/lib/use-membership";
import { useState } from "react";
import { LIVE_TEXTS, type LiveCallSummary } from "@shared/live";
import { Skeleton } from "@/components/ui/skeleton";
import { useNow } from "@/hooks/use-now";
import { StuckLegend } from "./live-format";
import { LiveTable } from "./live-table";
import { useLiveBoard } from "./use-live-board";
import { WatchSheet } from "./watch-sheet";

/**
 * The live board (`/live`): the account's calls in progress, pushed by the server as
 * they change; a row opens the call to listen, guide, take over or end it.
 */
export function LivePage() {
  const membership = useMembership();
  const role = membership.data?.role;
  const maySupervise = role !== undefined && can(role, "supervise");
  const board = useLiveBoard(maySupervise);
  const [panel, setPanel] = useState<{ open: boolean; call: LiveCallSummary | null }>({ open: false, call: null });
  const now = useNow(board.calls.length > 0 || panel.open);
  // The row's latest summary while it is on the board; the last one seen after the call ended.
  const fresh = board.calls.find((c) => c.callId === panel.call?.callId);
  const selected = fresh ?? panel.call;

  return (
    <section className="mx-auto grid w-full max-w-6xl gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">{LIVE_TEXTS.pageTitle}</h1>
          <p className="text-sm text-muted-foreground">Calls in progress right now: listen in, guide the assistant, or take over.</p>
        </div>
        {maySupervise && board.loaded && (
          <span className="flex items-center gap-2 text-xs font-medium text-muted-foreground" role="status" data-testid="board-connection">
            <span className={board.connected ? "size-2 rounded-full bg-emerald-500" : "size-2 rounded-full bg-amber-500"} aria-hidden="true" />
            {board.connected ? "Live" : "Reconnecting..."}
          </span>
        )}
      </div>

      {role !== undefined && !maySupervise ? (
        // The board's sockets would be refused: say which role it needs instead of loading forever.
        <div className="flex flex-col items-center gap-4 rounded-lg border border-dashed px-6 py-16 text-center" role="status" data-testid="live-needs-role">
          <div className="flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <Lock className="size-6" aria-hidden="true" />
          </div>
          <p className="max-w-md text-sm">{LIVE_TEXTS.needsRole(ROLE_LABELS[role])}</p>
        </div>
      ) : !board.loaded ? (
        <div className="grid gap-2" aria-busy="true" aria-label="Loading calls in progress">
          <Skeleton className="h-10" />
          <Skeleton className="h-14" />
        </div>
      ) : board.calls.length === 0 ? (
        <div className="flex flex-col items-center gap-4 rounded-lg border border-dashed px-6 py-16 text-center">
          <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
            <Radio className="size-6" aria-hidden="true" />
          </div>
          <div className="grid max-w-sm gap-1">
            <p className="font-medium">{LIVE_TEXTS.empty}</p>
            <p className="text-sm text-muted-foreground">Calls show here the moment they start, and leave when they end.</p>
          </div>
        </div>
      ) : (
        <LiveTable calls={board.calls} selectedId={panel.open ? (selected?.callId ?? null) : null} now={now} onOpen={(call) => setPanel({ open: true, call })} />
      )}

      {maySupervise && (
        <>
          <StuckLegend />
          <WatchSheet summary={selected} open={panel.open} now={now} onOpenChange={(open) => setPanel((p) => ({ ...p, open }))} />
        </>
      )}
    </section>
  );
}
