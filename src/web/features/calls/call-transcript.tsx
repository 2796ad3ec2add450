import { AlertCircle, Bot, FileText, Info, User, Wrench, type LucideIcon } from "lucide-react";
import { CALL_MESSAGES, type CallRecordLogs } from "@shared/call-records";
import type { TranscriptEntry, TranscriptEntryType } from "@shared/calls";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import { formatEntryTime, prettyJson } from "./call-format";

const TYPES: Record<TranscriptEntryType, { label: string; icon: LucideIcon; dot: string }> = {
  user: { label: "User", icon: User, dot: "bg-primary text-primary-foreground" },
  assistant: { label: "Assistant", icon: Bot, dot: "bg-muted text-foreground/70" },
  system: { label: "System", icon: Info, dot: "bg-muted text-muted-foreground" },
  "tool-request": { label: "Tool request", icon: Wrench, dot: "bg-amber-100 text-amber-800" },
  "tool-response": { label: "Tool response", icon: Wrench, dot: "bg-emerald-100 text-emerald-800" },
};

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
        <TranscriptItem key={i} entry={entry} />
      ))}
    </ol>
  );
}

function TranscriptItem({ entry }: { entry: TranscriptEntry }) {
  const type = TYPES[entry.type];
  const Icon = entry.isError ? AlertCircle : type.icon;
  return (
    <li className="relative flex gap-3" data-testid="transcript-entry" data-type={entry.type} data-error={entry.isError ? "true" : undefined}>
      <div
        className={cn(
          "z-10 flex size-7 shrink-0 items-center justify-center rounded-full ring-4 ring-background",
          entry.isError ? "bg-red-100 text-red-700" : type.dot,
        )}
        aria-hidden="true"
      >
        <Icon className="size-3.5" />
      </div>
      <div className="grid min-w-0 flex-1 gap-1.5 pt-0.5">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs">
          <span className="font-semibold text-foreground" data-testid="entry-type">
            {type.label}
          </span>
          <time dateTime={entry.timestamp} className="text-muted-foreground tabular-nums" data-testid="entry-time">
            {formatEntryTime(entry.timestamp)}
          </time>
          {entry.toolData?.status !== undefined && (
            <Badge variant={entry.isError ? "destructive" : "success"} className="tabular-nums">
              {entry.toolData.status}
            </Badge>
          )}
          {entry.toolData?.cached && <Badge variant="muted">cached</Badge>}
          {entry.toolData?.builtIn && <Badge variant="muted">built-in</Badge>}
          {entry.isError && <Badge variant="destructive">Error</Badge>}
        </div>
        <p
          className={cn("text-sm leading-relaxed break-words whitespace-pre-wrap", entry.isError && "text-destructive")}
          data-testid="entry-content"
        >
          {entry.content}
        </p>
        {entry.interruptedAtMs !== undefined && (
          <p className="text-xs text-muted-foreground italic">Interrupted after {(entry.interruptedAtMs / 1000).toFixed(1)} s</p>
        )}
        {entry.type === "tool-request" && <JsonBlock label="Parameters" value={entry.parameters ?? {}} />}
        {entry.type === "tool-response" && <JsonBlock label="Result" value={entry.result ?? null} />}
      </div>
    </li>
  );
}

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="grid gap-1" data-testid={`entry-${label.toLowerCase()}`}>
      <p className="text-xs font-medium text-muted-foreground">{label}</p>
      <pre className="max-h-64 overflow-auto rounded-md border bg-muted/30 px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap [overflow-wrap:anywhere]">
        {prettyJson(value)}
      </pre>
    </div>
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
