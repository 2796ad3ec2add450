import { format } from "date-fns";
import { callDuration, callStatus, type CallStatusKind, type CallSummary, type CallType } from "@shared/call-records";
import { neverConnected } from "@shared/outbound";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import { useNow } from "@/hooks/use-now";

/** Spec §9: call dates like "Mar 14, 2026 11:04 AM"; spec §8's fallback when unreadable. */
export function formatCallDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? "Invalid date" : format(date, "MMM d, yyyy h:mm a");
}

const STATUS_STYLES: Record<CallStatusKind, string> = {
  waiting: "border-transparent bg-amber-100 text-amber-900",
  "in-progress": "border-transparent bg-sky-100 text-sky-800",
  completed: "border-transparent bg-green-100 text-green-800",
  error: "border-transparent bg-red-100 text-red-800",
  other: "border-transparent bg-muted text-foreground/75",
};

/** Spec §4 "Call status shown": In progress (Queued or Ringing before an outbound call is answered), the ended reason, or Completed. */
export function CallStatusBadge({ call, className }: { call: Pick<CallSummary, "end_time" | "ended_reason" | "twilio_status">; className?: string }) {
  const { label, kind } = callStatus(call);
  return (
    <Badge className={cn(STATUS_STYLES[kind], "max-w-full", className)} data-status={kind} title={label}>
      {kind === "in-progress" && (
        <span className="relative flex size-1.5" aria-hidden="true">
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-sky-500 opacity-75 motion-reduce:animate-none" />
          <span className="relative inline-flex size-1.5 rounded-full bg-sky-500" />
        </span>
      )}
      <span className="truncate">{label}</span>
    </Badge>
  );
}

export function CallTypeBadge({ type }: { type: CallType }) {
  return (
    <Badge
      variant={type === "Unknown" ? "muted" : "outline"}
      className={cn(type === "Test" && "border-primary/25 bg-primary/5 text-primary")}
      data-type={type}
    >
      {type}
    </Badge>
  );
}

/** Start to end as m:ss; a call in progress counts up every second; a call that never connected has none. */
export function CallDuration({ call }: { call: Pick<CallSummary, "start_time" | "end_time" | "twilio_status"> }) {
  const now = useNow(!call.end_time && !neverConnected(call.twilio_status));
  return <span className="tabular-nums">{callDuration(call, now)}</span>;
}

/**
 * The assistant's name. A deleted assistant's calls keep the name they were made with, marked
 * "(deleted)"; "Deleted assistant" when even that is unknown.
 */
export function AssistantName({ call, className }: { call: Pick<CallSummary, "assistant_id" | "assistant_name">; className?: string }) {
  if (call.assistant_id === null) {
    return call.assistant_name ? (
      <span className={className}>
        {call.assistant_name} <span className="text-muted-foreground">(deleted)</span>
      </span>
    ) : (
      <span className={cn("text-muted-foreground italic", className)}>Deleted assistant</span>
    );
  }
  return call.assistant_name ? (
    <span className={className}>{call.assistant_name}</span>
  ) : (
    <span className={cn("text-muted-foreground italic", className)}>Unknown assistant</span>
  );
}
