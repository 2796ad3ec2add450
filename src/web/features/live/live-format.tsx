import { AlertTriangle, Headset, PhoneForwarded } from "lucide-react";
import { formatDuration } from "@shared/calls";
import { LIVE_TEXTS, STUCK_RULES, type LiveCallSummary, type StuckReason } from "@shared/live";
import { Badge } from "@/components/ui/badge";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { cn } from "@/lib/utils";

export const kindLabel = (kind: LiveCallSummary["kind"]) => (kind === "phone" ? "Phone" : "Test");

export function KindBadge({ kind }: { kind: LiveCallSummary["kind"] }) {
  return (
    <Badge variant="outline" className={cn(kind === "test" && "border-primary/25 bg-primary/5 text-primary")} data-kind={kind}>
      {kindLabel(kind)}
    </Badge>
  );
}

/** m:ss since the call started, counting with `now` (the page ticks it every second). */
export function LiveDuration({ startedAt, now }: { startedAt: string; now: number }) {
  const ms = Math.max(0, now - new Date(startedAt).getTime());
  return (
    <span className="tabular-nums" data-testid="live-duration">
      {formatDuration(ms)}
    </span>
  );
}

/**
 * The "Stuck?" badge: the caller may need a person. Its tooltip names the rules that fired;
 * screen readers get them in the badge's label, and the page's legend lists every rule.
 */
export function StuckBadge({ reasons }: { reasons: StuckReason[] }) {
  if (reasons.length === 0) return null;
  const why = reasons.map((r) => STUCK_RULES[r]);
  return (
    <Tooltip>
      <TooltipTrigger asChild>
        <Badge variant="warning" tabIndex={0} aria-label={`Stuck? ${why.join("; ")}`} data-testid="stuck-badge" data-reasons={reasons.join(" ")}>
          <AlertTriangle aria-hidden="true" />
          Stuck?
        </Badge>
      </TooltipTrigger>
      <TooltipContent>
        <ul className="grid gap-0.5">
          {why.map((text) => (
            <li key={text}>{text}</li>
          ))}
        </ul>
      </TooltipContent>
    </Tooltip>
  );
}

export function TakenOverBadge({ name }: { name: string | null }) {
  if (!name) return null;
  return (
    <Badge variant="secondary" data-testid="taken-over">
      <Headset aria-hidden="true" />
      {name} took over
    </Badge>
  );
}

/** Under the list: what each "Stuck?" rule means, so the badge is never a mystery. */
export function StuckLegend() {
  return (
    <section aria-label="When a call is flagged as stuck" className="grid gap-2 rounded-lg border border-dashed px-4 py-3 text-sm">
      <h2 className="flex items-center gap-2 font-medium">
        <Badge variant="warning" aria-hidden="true">
          <AlertTriangle />
          Stuck?
        </Badge>
        means the caller may need a person:
      </h2>
      <ul className="grid list-disc gap-1 pl-5 text-muted-foreground" data-testid="stuck-rules">
        {Object.entries(STUCK_RULES).map(([key, text]) => (
          <li key={key}>{text}</li>
        ))}
      </ul>
    </section>
  );
}

/** A call a SIP transfer put through to a person on this server: the assistant has left it. */
export function BridgedBadge({ to }: { to: string | null }) {
  if (!to) return null;
  return (
    <Badge variant="secondary" data-testid="bridged">
      <PhoneForwarded aria-hidden="true" />
      {LIVE_TEXTS.bridgedTo(to)}
    </Badge>
  );
}
