import { format } from "date-fns";
import { AlertCircle, Bot, Info, MessageSquare, User, Wrench } from "lucide-react";
import { memo, useEffect, useLayoutEffect, useRef, type ReactNode } from "react";
import type { TranscriptEntry, TranscriptEntryType } from "@shared/calls";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import type { TranscriptRow } from "./call-state";

const TYPE_LABELS: Record<TranscriptEntryType, string> = {
  user: "User",
  assistant: "Assistant",
  system: "System",
  "tool-request": "Tool request",
  "tool-response": "Tool response",
};

function timeOf(timestamp: string): string {
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? "" : format(date, "h:mm:ss a");
}

function prettyJson(value: unknown): string {
  if (typeof value === "string") {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value, null, 2) ?? String(value);
}

/** Type label and time: every entry shows both (spec §2 "Conversation Transcript"). */
function EntryMeta({ entry, className, children }: { entry: TranscriptEntry; className?: string; children?: ReactNode }) {
  return (
    <div className={cn("flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground", className)}>
      <span className="font-medium text-foreground/80" data-testid="entry-type">
        {TYPE_LABELS[entry.type]}
      </span>
      <time dateTime={entry.timestamp} className="tabular-nums">
        {timeOf(entry.timestamp)}
      </time>
      {children}
    </div>
  );
}

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="grid gap-1">
      <p className="text-xs font-medium text-muted-foreground">{label}</p>
      <pre className="max-h-64 overflow-auto rounded-md border bg-background px-3 py-2 font-mono text-[12px] leading-relaxed whitespace-pre-wrap [overflow-wrap:anywhere]">
        {prettyJson(value)}
      </pre>
    </div>
  );
}

function Bubble({ entry }: { entry: TranscriptEntry }) {
  const user = entry.type === "user";
  const Icon = user ? User : Bot;
  return (
    <div className={cn("flex gap-2.5", user && "flex-row-reverse")}>
      <div
        className={cn(
          "mt-5 flex size-7 shrink-0 items-center justify-center rounded-full",
          user ? "bg-primary text-primary-foreground" : "bg-muted text-muted-foreground",
        )}
        aria-hidden="true"
      >
        <Icon className="size-4" />
      </div>
      <div className={cn("flex max-w-[85%] min-w-0 flex-col gap-1", user && "items-end")}>
        <EntryMeta entry={entry} className={cn(user && "justify-end")} />
        <div
          className={cn(
            "rounded-2xl px-3.5 py-2 text-sm leading-relaxed break-words whitespace-pre-wrap",
            user ? "rounded-tr-sm bg-primary/10 text-foreground" : "rounded-tl-sm bg-muted",
            entry.isError && "border border-destructive/40 bg-destructive/5 text-destructive",
          )}
        >
          {entry.content}
        </div>
        {entry.interruptedAtMs !== undefined && (
          <p className="text-xs text-muted-foreground italic">Interrupted after {(entry.interruptedAtMs / 1000).toFixed(1)} s</p>
        )}
      </div>
    </div>
  );
}

function ToolCard({ entry }: { entry: TranscriptEntry }) {
  const request = entry.type === "tool-request";
  return (
    <div
      className={cn("grid gap-2 rounded-lg border bg-muted/30 px-3.5 py-3", entry.isError && "border-destructive/40 bg-destructive/5")}
      data-error={entry.isError ? "true" : undefined}
    >
      <EntryMeta entry={entry}>
        {entry.toolData?.builtIn && <Badge variant="muted">built-in</Badge>}
        {entry.toolData?.status !== undefined && (
          <Badge variant={entry.isError ? "destructive" : "success"} className="tabular-nums">
            {entry.toolData.status}
          </Badge>
        )}
      </EntryMeta>
      <p className={cn("flex items-start gap-2 text-sm font-medium break-words", entry.isError && "text-destructive")}>
        <Wrench className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="min-w-0">{entry.content}</span>
      </p>
      {request ? <JsonBlock label="Parameters" value={entry.parameters ?? {}} /> : <JsonBlock label="Result" value={entry.result ?? null} />}
    </div>
  );
}

function SystemLine({ entry }: { entry: TranscriptEntry }) {
  const Icon = entry.isError ? AlertCircle : Info;
  return (
    <div
      className={cn(
        "mx-auto flex max-w-[90%] items-start gap-2 rounded-md px-3 py-2 text-sm",
        entry.isError ? "border border-destructive/30 bg-destructive/5 text-destructive" : "bg-muted/60 text-muted-foreground",
      )}
      data-error={entry.isError ? "true" : undefined}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="grid min-w-0 gap-0.5">
        <EntryMeta entry={entry} className={cn(entry.isError && "text-destructive/80 [&_span]:text-destructive")} />
        <p className="break-words">{entry.content}</p>
      </div>
    </div>
  );
}

const Entry = memo(function Entry({ entry }: { entry: TranscriptEntry }) {
  const body =
    entry.type === "user" || entry.type === "assistant" ? (
      <Bubble entry={entry} />
    ) : entry.type === "system" ? (
      <SystemLine entry={entry} />
    ) : (
      <ToolCard entry={entry} />
    );
  return (
    <li data-testid="transcript-entry" data-type={entry.type} data-error={entry.isError ? "true" : undefined}>
      {body}
    </li>
  );
});

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
  const scroller = useRef<HTMLDivElement>(null);
  const stick = useRef(true);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && stick.current) el.scrollTop = el.scrollHeight;
  }, [rows]);

  return (
    <div ref={scroller} className="flex min-h-0 flex-1 flex-col overflow-y-auto" data-testid="test-call-transcript">
      {notice}
      {rows.length === 0 ? (
        !notice && <TranscriptEmpty />
      ) : (
        <ol className="flex flex-col gap-4 px-4 py-5 sm:px-6" aria-label="Transcript" aria-live="polite">
          {rows.map((row) => (
            <Entry key={row.key} entry={row.entry} />
          ))}
        </ol>
      )}
    </div>
  );
}
