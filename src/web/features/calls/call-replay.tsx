import { REPLAY_MESSAGES, type CallReplay, type ReplaySide, type ReplayToolCall } from "@shared/replay";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Spinner } from "@/components/ui/spinner";
import { prettyJson } from "@/lib/format";
import { useReplayCall } from "./use-calls";
import { ErrorLine } from "@/components/form-dialog";

/**
 * "Replay against draft": the replay started by the button (one request per click, never by an
 * effect, since each costs model requests) and the two conversations side by side, one row per
 * caller turn, with the tool calls each side made.
 */
export function CallReplayDialog({ replay, open, onOpenChange }: { replay: ReturnType<typeof useReplayCall>; open: boolean; onOpenChange: (open: boolean) => void }) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-5xl" data-testid="call-replay">
        <DialogHeader>
          <DialogTitle>{REPLAY_MESSAGES.title}</DialogTitle>
          <DialogDescription>{REPLAY_MESSAGES.description}</DialogDescription>
        </DialogHeader>
        {replay.isPending && (
          <div className="flex items-center gap-2 text-sm text-muted-foreground">
            <Spinner label={REPLAY_MESSAGES.running} className="size-4" />
            {REPLAY_MESSAGES.running}
          </div>
        )}
        <ErrorLine message={replay.isError ? (replay.error instanceof Error ? replay.error.message : REPLAY_MESSAGES.failed("try again")) : null} />
        {replay.data && <ReplayTurns replay={replay.data} />}
      </DialogContent>
    </Dialog>
  );
}

function ReplayTurns({ replay }: { replay: CallReplay }) {
  return (
    <div className="grid gap-3">
      <p className="text-xs text-muted-foreground">
        {replay.assistant.name} · {replay.model}
        {replay.cost !== null && ` · $${replay.cost.toFixed(4)}`}
      </p>
      <div className="grid grid-cols-2 gap-3 text-xs font-semibold text-muted-foreground" aria-hidden>
        <span>{REPLAY_MESSAGES.original}</span>
        <span>{REPLAY_MESSAGES.draft}</span>
      </div>
      <ol className="grid gap-4">
        {replay.turns.map((turn, i) => (
          <li key={i} className="grid gap-2" data-testid="replay-turn">
            <p className="rounded-md bg-muted px-3 py-2 text-sm">
              <span className="font-medium">{turn.caller === null ? REPLAY_MESSAGES.opening : "Caller: "}</span>
              {turn.caller}
            </p>
            <div className="grid grid-cols-2 gap-3">
              <Side label={REPLAY_MESSAGES.original} side={turn.original} />
              {turn.draft ? <Side label={REPLAY_MESSAGES.draft} side={turn.draft} /> : <p className="text-sm text-muted-foreground italic">{REPLAY_MESSAGES.notReached}</p>}
            </div>
          </li>
        ))}
      </ol>
      {replay.stopped && <p className="text-sm text-muted-foreground">{replay.stopped}</p>}
    </div>
  );
}

function Side({ label, side }: { label: string; side: ReplaySide }) {
  return (
    <div role="group" className="grid content-start gap-1.5 rounded-md border p-2 text-sm" aria-label={label}>
      {side.said.map((line, i) => (
        <p key={i}>{line}</p>
      ))}
      {side.tool_calls.map((call, i) => (
        <ToolCall key={i} call={call} original={label === REPLAY_MESSAGES.original} />
      ))}
      {side.said.length === 0 && side.tool_calls.length === 0 && <p className="text-muted-foreground">—</p>}
    </div>
  );
}

function ToolCall({ call, original }: { call: ReplayToolCall; original: boolean }) {
  return (
    <details className="rounded bg-muted/50 px-2 py-1 text-xs">
      <summary className="cursor-pointer">
        <span className="font-mono">{call.name}</span>
        {!original && <span className="text-muted-foreground"> · {REPLAY_MESSAGES.answeredFrom[call.answered_from]}</span>}
      </summary>
      <pre className="mt-1 overflow-x-auto whitespace-pre-wrap">{prettyJson(call.arguments)}</pre>
      <pre className="mt-1 overflow-x-auto whitespace-pre-wrap text-muted-foreground">{prettyJson(call.result)}</pre>
    </details>
  );
}
