import { FileText } from "lucide-react";
import { CALL_MESSAGES, type CallRecordLogs } from "@shared/call-records";
import { TranscriptEntryItem } from "@/components/transcript-entry";

/**
 * Conversation Transcript (spec §2): every entry with its type, time and content; tool requests
 * add their Parameters and tool responses their Result. "No transcript available" when the
 * record has no logs, "No transcript data available" when its transcript is empty.
 */
export function CallTranscript({ logs }: { logs: CallRecordLogs | null }) {
  if (!logs) return <TranscriptFallback text={CALL_MESSAGES.noTranscript} />;
  const entries = logs.transcript ?? [];
  if (entries.length === 0) return <TranscriptFallback text={CALL_MESSAGES.emptyTranscript} />;
  return (
    <ol className="relative grid gap-5" aria-label="Transcript">
      {/* The timeline's spine, behind the entries' icons. */}
      <span className="absolute top-3 bottom-3 left-[13px] w-px bg-border" aria-hidden="true" />
      {entries.map((entry, i) => (
        <TranscriptEntryItem key={i} entry={entry} layout="timeline" />
      ))}
    </ol>
  );
}

function TranscriptFallback({ text }: { text: string }) {
  return (
    <div className="flex flex-col items-center gap-2 rounded-lg border border-dashed px-6 py-8 text-center">
      <FileText className="size-5 text-muted-foreground" aria-hidden="true" />
      <p className="text-sm text-muted-foreground">{text}</p>
    </div>
  );
}
