import { AlertCircle, Bot, Headset, Info, User, Wrench, type LucideIcon } from "lucide-react";
import { memo, type ReactNode } from "react";
import type { TranscriptEntry, TranscriptEntryType } from "@shared/calls";
import { Badge } from "@/components/ui/badge";
import { formatEntryTime } from "@/lib/format";
import { interruptionText, toolJsonOf } from "@/lib/transcript";
import { cn } from "@/lib/utils";

/**
 * One renderer of a transcript entry, for the Test Call panel (a live chat: bubbles, tool cards,
 * system lines) and the Calls details (a timeline). Both layouts share the type labels, the time,
 * the JSON blocks, the tool status and the interruption line, so the two pages never disagree.
 * The live board renders its calls with it too; a system entry that records a supervisor's
 * action (listened, guided, took over, ...) is labelled "Supervisor" with who did it.
 */
export type TranscriptLayout = "chat" | "timeline";

const TYPES: Record<TranscriptEntryType, { label: string; icon: LucideIcon; dot: string }> = {
  user: { label: "User", icon: User, dot: "bg-primary text-primary-foreground" },
  assistant: { label: "Assistant", icon: Bot, dot: "bg-muted text-foreground/70" },
  system: { label: "System", icon: Info, dot: "bg-muted text-muted-foreground" },
  "tool-request": { label: "Tool request", icon: Wrench, dot: "bg-amber-100 text-amber-800" },
  "tool-response": { label: "Tool response", icon: Wrench, dot: "bg-emerald-100 text-emerald-800" },
};
const SUPERVISOR = { label: "Supervisor", icon: Headset, dot: "bg-violet-100 text-violet-800" };

const kindOf = (entry: TranscriptEntry) => (entry.supervisor ? SUPERVISOR : TYPES[entry.type]);

export const TranscriptEntryItem = memo(function TranscriptEntryItem({ entry, layout }: { entry: TranscriptEntry; layout: TranscriptLayout }) {
  return (
    <li
      className={cn(layout === "timeline" && "relative flex gap-3")}
      data-testid="transcript-entry"
      data-type={entry.type}
      data-supervisor={entry.supervisor?.action}
      data-error={entry.isError ? "true" : undefined}
    >
      {layout === "timeline" ? (
        <TimelineEntry entry={entry} />
      ) : entry.type === "user" || entry.type === "assistant" ? (
        <Bubble entry={entry} />
      ) : entry.type === "system" ? (
        <SystemLine entry={entry} />
      ) : (
        <ToolCard entry={entry} />
      )}
    </li>
  );
});

/** Type label and time: every entry shows both; tool entries add their HTTP status. */
function EntryMeta({ entry, className, children }: { entry: TranscriptEntry; className?: string; children?: ReactNode }) {
  return (
    <div className={cn("flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground", className)}>
      <span className="font-semibold text-foreground/85" data-testid="entry-type">
        {kindOf(entry).label}
      </span>
      {entry.supervisor && <span data-testid="entry-supervisor">{entry.supervisor.name}</span>}
      <time dateTime={entry.timestamp} className="tabular-nums" data-testid="entry-time">
        {formatEntryTime(entry.timestamp)}
      </time>
      {entry.toolData?.status !== undefined && (
        <Badge variant={entry.isError ? "destructive" : "success"} className="tabular-nums">
          {entry.toolData.status}
        </Badge>
      )}
      {entry.toolData?.cached && <Badge variant="muted">cached</Badge>}
      {entry.toolData?.builtIn && <Badge variant="muted">built-in</Badge>}
      {children}
    </div>
  );
}

/** The point where the caller cut the assistant off; what follows was never heard. */
function InterruptionLine({ entry }: { entry: TranscriptEntry }) {
  const text = interruptionText(entry);
  return text && <p className="text-xs text-muted-foreground italic">{text}</p>;
}

/** A tool request's Parameters or a tool response's Result. */
function ToolJson({ entry, className }: { entry: TranscriptEntry; className?: string }) {
  const shown = toolJsonOf(entry);
  if (!shown) return null;
  const { label, json } = shown;
  return (
    <div className="grid gap-1" data-testid={`entry-${label.toLowerCase()}`}>
      <p className="text-xs font-medium text-muted-foreground">{label}</p>
      <pre
        className={cn(
          "max-h-64 overflow-auto rounded-md border px-3 py-2 font-mono text-xs leading-relaxed whitespace-pre-wrap [overflow-wrap:anywhere]",
          className,
        )}
      >
        {json}
      </pre>
    </div>
  );
}

function TimelineEntry({ entry }: { entry: TranscriptEntry }) {
  const type = kindOf(entry);
  const Icon = entry.isError ? AlertCircle : type.icon;
  return (
    <>
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
        <EntryMeta entry={entry}>{entry.isError && <Badge variant="destructive">Error</Badge>}</EntryMeta>
        <p
          className={cn("text-sm leading-relaxed break-words whitespace-pre-wrap", entry.isError && "text-destructive")}
          data-testid="entry-content"
        >
          {entry.content}
        </p>
        <InterruptionLine entry={entry} />
        <ToolJson entry={entry} className="bg-muted/30" />
      </div>
    </>
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
          data-testid="entry-content"
        >
          {entry.content}
        </div>
        <InterruptionLine entry={entry} />
      </div>
    </div>
  );
}

function ToolCard({ entry }: { entry: TranscriptEntry }) {
  return (
    <div className={cn("grid gap-2 rounded-lg border bg-muted/30 px-3.5 py-3", entry.isError && "border-destructive/40 bg-destructive/5")}>
      <EntryMeta entry={entry} />
      <p className={cn("flex items-start gap-2 text-sm font-medium break-words", entry.isError && "text-destructive")} data-testid="entry-content">
        <Wrench className="mt-0.5 size-4 shrink-0 text-muted-foreground" aria-hidden="true" />
        <span className="min-w-0">{entry.content}</span>
      </p>
      <ToolJson entry={entry} className="bg-background" />
    </div>
  );
}

function SystemLine({ entry }: { entry: TranscriptEntry }) {
  const Icon = entry.isError ? AlertCircle : entry.supervisor ? Headset : Info;
  return (
    <div
      className={cn(
        "mx-auto flex max-w-[90%] items-start gap-2 rounded-md px-3 py-2 text-sm",
        entry.isError ? "border border-destructive/30 bg-destructive/5 text-destructive" : "bg-muted/60 text-muted-foreground",
      )}
    >
      <Icon className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="grid min-w-0 gap-0.5">
        <EntryMeta entry={entry} className={cn(entry.isError && "text-destructive/80 [&_span]:text-destructive")} />
        <p className="break-words" data-testid="entry-content">
          {entry.content}
        </p>
      </div>
    </div>
  );
}
