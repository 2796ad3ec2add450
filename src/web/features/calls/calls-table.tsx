import type { KeyboardEvent } from "react";
import { Link } from "react-router";
import { callVersionLabel, COST_TEXTS, formatCallCost, type CallSummary } from "@shared/call-records";
import { CALL_DIRECTION_LABELS, OUTBOUND_TEXTS } from "@shared/outbound";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { SuccessBadge } from "./call-analysis";
import { AssistantName, CallDuration, CallStatusBadge, CallTypeBadge, formatCallDate } from "./call-format";

interface CallsTableProps {
  calls: CallSummary[];
  selectedId: string | null;
  onOpen: (call: CallSummary) => void;
}

export function CallsTable({ calls, selectedId, onOpen }: CallsTableProps) {
  return (
    <div className="overflow-hidden rounded-lg border bg-card">
      <Table>
        <TableHeader className="bg-muted/40">
          <TableRow className="hover:bg-transparent">
            <TableHead className="pl-4">Date</TableHead>
            <TableHead className="hidden sm:table-cell">Type</TableHead>
            <TableHead className="hidden lg:table-cell">Customer</TableHead>
            <TableHead className="hidden md:table-cell">Assistant</TableHead>
            <TableHead className="hidden xl:table-cell">Version</TableHead>
            <TableHead className="hidden lg:table-cell">Direction</TableHead>
            <TableHead>Duration</TableHead>
            <TableHead className="hidden sm:table-cell">Cost</TableHead>
            <TableHead className="hidden md:table-cell">Success</TableHead>
            <TableHead className="pr-4">Status</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {calls.map((call) => (
            <TableRow
              key={call.id}
              data-testid="call-row"
              data-state={call.id === selectedId ? "selected" : undefined}
              tabIndex={0}
              aria-label={`Call on ${formatCallDate(call.start_time)}: open details`}
              className="cursor-pointer focus-visible:bg-muted/50 focus-visible:outline-none"
              onClick={() => onOpen(call)}
              onKeyDown={(e: KeyboardEvent) => {
                if (e.target === e.currentTarget && (e.key === "Enter" || e.key === " ")) {
                  e.preventDefault();
                  onOpen(call);
                }
              }}
            >
              <TableCell className="py-3 pl-4">
                <CallDate iso={call.start_time} />
                {/* Narrow screens drop the Assistant column; its name goes under the date instead. */}
                <AssistantName call={call} className="mt-0.5 block max-w-[11rem] truncate text-xs text-muted-foreground md:hidden" />
              </TableCell>
              <TableCell className="hidden sm:table-cell">
                <CallTypeBadge type={call.type} />
              </TableCell>
              {/* The caller's number for phone calls; the user who made it for a browser test call. */}
              <TableCell className="hidden max-w-[12rem] truncate tabular-nums lg:table-cell" title={call.customer ?? undefined}>
                {call.customer ?? <span className="text-muted-foreground">Unknown</span>}
              </TableCell>
              <TableCell className="hidden max-w-[14rem] truncate md:table-cell">
                <AssistantName call={call} />
              </TableCell>
              <TableCell className="hidden text-muted-foreground xl:table-cell">{callVersionLabel(call)}</TableCell>
              <TableCell className="hidden lg:table-cell">
                {CALL_DIRECTION_LABELS[call.direction]}
                {/* A campaign's call names it; the link opens the campaign, not the call. */}
                {call.campaign_id && (
                  <Link
                    to={`/campaigns/${call.campaign_id}`}
                    className="block text-xs text-primary underline-offset-4 hover:underline"
                    onClick={(e) => e.stopPropagation()}
                    onKeyDown={(e) => e.stopPropagation()}
                  >
                    {OUTBOUND_TEXTS.campaign}
                  </Link>
                )}
              </TableCell>
              <TableCell>
                <CallDuration call={call} />
              </TableCell>
              <TableCell className="hidden tabular-nums sm:table-cell">
                {/* Which figure it is: the tariff (test calls) or the real cost (phone calls), on hover and in the details. */}
                <span
                  className={call.cost === null ? "text-muted-foreground" : undefined}
                  title={`${COST_TEXTS.basis[call.cost_basis]}: ${COST_TEXTS.basisHint[call.cost_basis]}`}
                  data-cost-basis={call.cost_basis}
                >
                  {formatCallCost(call.cost, call.cost_basis)}
                </span>
              </TableCell>
              <TableCell className="hidden md:table-cell">
                <SuccessBadge value={call.success} />
              </TableCell>
              <TableCell className="max-w-[9rem] pr-4 sm:max-w-[14rem]">
                <CallStatusBadge call={call} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}

/** "MMM d, yyyy h:mm a" that breaks, on a narrow screen, between the day and the time only. */
function CallDate({ iso }: { iso: string }) {
  const [day, time] = formatCallDate(iso).split(/ (?=\d{1,2}:\d{2} [AP]M$)/);
  return (
    <span className="font-medium whitespace-normal sm:whitespace-nowrap">
      <span className="whitespace-nowrap">{day}</span>
      {time && (
        <>
          {" "}
          <span className="whitespace-nowrap">{time}</span>
        </>
      )}
    </span>
  );
}
