import { CircleStop, MessageSquare } from "lucide-react";
import { useMemo } from "react";
import { useFollowScroll } from "@/hooks/use-follow-scroll";
import type { LiveCallSummary } from "@shared/live";
import { TranscriptEntryItem } from "@/components/transcript-entry";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { Spinner } from "@/components/ui/spinner";
import { KindBadge, LiveDuration, StuckBadge, TakenOverBadge } from "./live-format";
import { isOver, watchRows } from "./live-state";
import { useWatchCall } from "./use-watch-call";
import { GuideBox, WatchControls } from "./watch-controls";

interface WatchSheetProps {
  /** The board's row, shown until the call's own snapshot arrives; kept while the panel closes. */
  summary: LiveCallSummary | null;
  open: boolean;
  now: number;
  onOpenChange: (open: boolean) => void;
}

/**
 * One call in progress, opened from the board: the transcript as it is spoken (the renderer of
 * the Calls details), and the supervisor's controls. The call's socket is open while the panel is.
 */
export function WatchSheet({ summary, open, now, onOpenChange }: WatchSheetProps) {
  const watch = useWatchCall(open ? (summary?.callId ?? null) : null);
  const { view } = watch;
  const call = view.call ?? summary;
  const rows = useMemo(() => watchRows(view.entries), [view.entries]);
  const live = view.control !== null && !isOver(view);

  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent className="w-full gap-0 overflow-hidden sm:w-[60%] sm:max-w-[60%] lg:w-[45%] lg:max-w-[45%]">
        <SheetHeader className="gap-3 border-b px-4 pt-5 pb-4 sm:px-6 sm:pt-6">
          <SheetTitle className="pr-8 text-xl break-words">Live call: {call?.assistant.name ?? "Assistant"}</SheetTitle>
          <SheetDescription asChild>
            <div className="flex flex-wrap items-center gap-x-3 gap-y-1.5">
              {call && <KindBadge kind={call.kind} />}
              {call?.callerNumber && <span className="tabular-nums">From {call.callerNumber}</span>}
              {call?.calledNumber && <span className="tabular-nums">To {call.calledNumber}</span>}
              {call && !isOver(view) && <LiveDuration startedAt={call.startedAt} now={now} />}
              {view.control && <span>{view.control.watchers} watching</span>}
              {call && <StuckBadge reasons={call.stuck} />}
              {call && <TakenOverBadge name={call.takenOverBy} />}
            </div>
          </SheetDescription>
          {view.ended ? (
            <p role="status" className="flex items-center gap-2 rounded-md bg-muted px-3 py-2 text-sm font-medium" data-testid="watch-ended">
              <CircleStop className="size-4 text-muted-foreground" aria-hidden="true" />
              This call has ended{view.ended.reason ? `: ${view.ended.reason}` : ""}
            </p>
          ) : view.lost ? (
            <p role="status" className="flex items-center gap-2 rounded-md bg-muted px-3 py-2 text-sm font-medium" data-testid="watch-lost">
              <CircleStop className="size-4 text-muted-foreground" aria-hidden="true" />
              {view.lost}
            </p>
          ) : view.control === null ? (
            <p className="flex items-center gap-2 text-sm text-muted-foreground">
              <Spinner className="size-4" label="Connecting to the call" />
              Connecting to the call...
            </p>
          ) : (
            <WatchControls
              view={view}
              heard={watch.heard}
              micStarting={watch.micStarting}
              onListen={watch.listen}
              onTakeOver={watch.takeOver}
              onHandBack={watch.handBack}
              onEndCall={watch.endCall}
            />
          )}
        </SheetHeader>
        <LiveTranscript rows={rows} />
        <GuideBox disabled={!live} onGuide={watch.guide} />
      </SheetContent>
    </Sheet>
  );
}

/** The transcript as it is spoken; follows new entries unless the reader has scrolled up. */
function LiveTranscript({ rows }: { rows: ReturnType<typeof watchRows> }) {
  const scroller = useFollowScroll(rows);

  return (
    <div ref={scroller} className="flex min-h-0 flex-1 flex-col overflow-y-auto" data-testid="live-transcript">
      {rows.length === 0 ? (
        <div className="flex flex-1 flex-col items-center justify-center gap-3 px-8 py-10 text-center text-sm text-muted-foreground">
          <MessageSquare className="size-6" aria-hidden="true" />
          Nothing said yet
        </div>
      ) : (
        <ol className="relative grid gap-5 px-4 py-5 sm:px-6" aria-label="Transcript" aria-live="polite">
          <span className="absolute top-8 bottom-8 left-[29px] w-px bg-border sm:left-[37px]" aria-hidden="true" />
          {rows.map((row) => (
            <TranscriptEntryItem key={row.key} entry={row.entry} layout="timeline" />
          ))}
        </ol>
      )}
    </div>
  );
}
