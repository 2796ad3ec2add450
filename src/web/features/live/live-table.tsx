import { Eye } from "lucide-react";
import type { LiveCallSummary } from "@shared/live";
import { ListTable, OpenableRow } from "@/components/list-table";
import { TableCell, TableHead } from "@/components/ui/table";
import { BridgedBadge, KindBadge, LiveDuration, StuckBadge, TakenOverBadge, kindLabel } from "./live-format";

interface LiveTableProps {
  calls: LiveCallSummary[];
  selectedId: string | null;
  now: number;
  onOpen: (call: LiveCallSummary) => void;
}

const SPEAKER = { caller: "Caller", assistant: "Assistant", supervisor: "Supervisor" } as const;

/** The calls in progress; a row opens the call (transcript and controls). */
export function LiveTable({ calls, selectedId, now, onOpen }: LiveTableProps) {
  return (
    <ListTable
      label="Calls in progress"
      head={
        <>
          <TableHead className="pl-4">Assistant</TableHead>
          <TableHead className="hidden sm:table-cell">Type</TableHead>
          <TableHead className="hidden lg:table-cell">Caller</TableHead>
          <TableHead className="hidden lg:table-cell">Number Called</TableHead>
          <TableHead>Duration</TableHead>
          <TableHead className="hidden md:table-cell">Last said</TableHead>
          <TableHead>Status</TableHead>
          <TableHead className="pr-4 text-right">Watching</TableHead>
        </>
      }
    >
      {calls.map((call) => (
        <OpenableRow
          key={call.callId}
          data-testid="live-call-row"
          data-call-id={call.callId}
          data-state={call.callId === selectedId ? "selected" : undefined}
          aria-label={`${kindLabel(call.kind)} call with ${call.assistant.name}: open`}
          onOpen={() => onOpen(call)}
        >
          <TableCell className="max-w-[12rem] truncate py-3 pl-4 font-medium">{call.assistant.name}</TableCell>
          <TableCell className="hidden sm:table-cell">
            <KindBadge kind={call.kind} />
          </TableCell>
          <TableCell className="hidden tabular-nums lg:table-cell" data-testid="caller-number">
            {call.callerNumber ?? <span className="text-muted-foreground">—</span>}
          </TableCell>
          <TableCell className="hidden tabular-nums lg:table-cell" data-testid="called-number">
            {call.calledNumber ?? <span className="text-muted-foreground">—</span>}
          </TableCell>
          <TableCell>
            <LiveDuration startedAt={call.startedAt} now={now} />
          </TableCell>
          <TableCell className="hidden max-w-[22rem] md:table-cell" data-testid="last-said">
            {call.lastSaid ? (
              <p className="truncate text-sm" title={call.lastSaid.text}>
                <span className="font-medium">{SPEAKER[call.lastSaid.speaker]}: </span>
                {call.lastSaid.text}
              </p>
            ) : (
              <span className="text-muted-foreground">Nothing said yet</span>
            )}
          </TableCell>
          <TableCell>
            <div className="flex flex-wrap gap-1.5">
              <StuckBadge reasons={call.stuck} />
              <TakenOverBadge name={call.takenOverBy} />
              <BridgedBadge to={call.bridgedTo} />
            </div>
          </TableCell>
          <TableCell className="pr-4 text-right tabular-nums" data-testid="watchers">
            <span className="inline-flex items-center gap-1" aria-label={`${call.watchers} watching`}>
              <Eye className="size-3.5 text-muted-foreground" aria-hidden="true" />
              {call.watchers}
            </span>
          </TableCell>
        </OpenableRow>
      ))}
    </ListTable>
  );
}
