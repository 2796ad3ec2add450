import { MessageSquare } from "lucide-react";
import type { ReactNode } from "react";
import { useFollowScroll } from "@/hooks/use-follow-scroll";
import { TranscriptEntryItem } from "@/components/transcript-entry";
import type { TranscriptRow } from "./call-state";

export function TranscriptEmpty() {
  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-3 px-8 py-10 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
        <MessageSquare className="size-6" aria-hidden="true" />
      </div>
      <p className="font-medium">Start a call to begin testing your assistant</p>
      <p className="max-w-sm text-sm text-muted-foreground">You&apos;ll be able to speak with your assistant and see how it responds to your queries</p>
    </div>
  );
}

/** The live transcript; follows new entries unless the reader has scrolled up. */
export function TranscriptView({ rows, notice }: { rows: TranscriptRow[]; notice?: ReactNode }) {
  const scroller = useFollowScroll(rows);

  return (
    <div ref={scroller} className="flex min-h-0 flex-1 flex-col overflow-y-auto" data-testid="test-call-transcript">
      {notice}
      {rows.length === 0 ? (
        !notice && <TranscriptEmpty />
      ) : (
        <ol className="flex flex-col gap-4 px-4 py-5 sm:px-6" aria-label="Transcript" aria-live="polite">
          {rows.map((row) => (
            <TranscriptEntryItem key={row.key} entry={row.entry} layout="chat" />
          ))}
        </ol>
      )}
    </div>
  );
}
