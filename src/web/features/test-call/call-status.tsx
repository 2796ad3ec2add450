import { AlertCircle, AudioLines, CheckCircle2, Clock, MicOff, Phone, PhoneOff, Wifi, WifiOff } from "lucide-react";
import { formatDuration } from "@shared/calls";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";
import { cn } from "@/lib/utils";
import { MIC_DENIED_STATUS, type CallOutcome, type CallPhase } from "./call-state";

/** The icon and colour of the status line, read from the phase and the status text. */
function statusLook(phase: CallPhase, text: string) {
  if (/error|fail/i.test(text)) return { Icon: AlertCircle, tone: "text-destructive" };
  if (text === MIC_DENIED_STATUS) return { Icon: MicOff, tone: "text-destructive" };
  if (text.startsWith("Disconnected")) return { Icon: WifiOff, tone: "text-muted-foreground" };
  if (phase === "connecting") return { Icon: null, tone: "text-muted-foreground" };
  if (phase === "active") return text === "Assistant is responding" ? { Icon: AudioLines, tone: "text-primary" } : { Icon: Wifi, tone: "text-success" };
  if (phase === "ended") return { Icon: CheckCircle2, tone: "text-muted-foreground" };
  return { Icon: WifiOff, tone: "text-muted-foreground" };
}

export function StatusLine({ phase, text }: { phase: CallPhase; text: string }) {
  const { Icon, tone } = statusLook(phase, text);
  return (
    <p className={cn("flex min-w-0 items-center gap-2 text-sm font-medium", tone)} role="status" data-testid="call-status">
      {Icon ? <Icon className="size-4 shrink-0" aria-hidden="true" /> : <Spinner className="shrink-0" label="Connecting" />}
      <span className="min-w-0 truncate">{text}</span>
    </p>
  );
}

/** Running duration while live; the final duration and cost once ended. */
export function CallFigures({ phase, elapsedMs, outcome }: { phase: CallPhase; elapsedMs: number | null; outcome: CallOutcome | null }) {
  if (outcome) {
    return (
      <div className="flex items-center gap-3 text-xs text-muted-foreground" data-testid="call-figures">
        <span className="flex items-center gap-1 tabular-nums">
          <Clock className="size-3.5" aria-hidden="true" />
          <span className="sr-only">Duration</span>
          {formatDuration(outcome.durationMs)}
        </span>
        <span className="tabular-nums">
          Cost <span className="font-medium text-foreground">${outcome.cost.toFixed(2)}</span>
        </span>
      </div>
    );
  }
  if (phase !== "active" || elapsedMs === null) return null;
  return (
    <span className="flex items-center gap-1.5 text-xs text-muted-foreground tabular-nums" data-testid="call-figures">
      <span className="relative flex size-2" aria-hidden="true">
        <span className="absolute inline-flex size-full animate-ping rounded-full bg-red-400 opacity-75 motion-reduce:animate-none" />
        <span className="relative inline-flex size-2 rounded-full bg-red-500" />
      </span>
      <span className="sr-only">Duration</span>
      {formatDuration(elapsedMs)}
    </span>
  );
}

interface CallButtonProps {
  phase: CallPhase;
  ending: boolean;
  onStart: () => void;
  onEnd: () => void;
}

/** Start Call / End Call, reading Connecting... while connecting (spec §2). */
export function CallButton({ phase, ending, onStart, onEnd }: CallButtonProps) {
  if (phase === "connecting") {
    return (
      <Button variant="secondary" disabled className="w-full min-w-32 sm:w-auto">
        <Spinner label="Connecting" />
        Connecting...
      </Button>
    );
  }
  if (phase === "active") {
    return (
      <Button variant="destructive" onClick={onEnd} disabled={ending} className="w-full min-w-32 sm:w-auto">
        {ending ? <Spinner label="Ending call" className="text-white" /> : <PhoneOff />}
        End Call
      </Button>
    );
  }
  return (
    <Button onClick={onStart} className="w-full min-w-32 sm:w-auto">
      <Phone />
      Start Call
    </Button>
  );
}
