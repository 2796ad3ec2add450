import { FileJson } from "lucide-react";
import { useState, type ReactNode } from "react";
import { callDurationMs, callType, formatCost, type CallRecord } from "@shared/call-records";
import { Button } from "@/components/ui/button";
import { Separator } from "@/components/ui/separator";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { cn } from "@/lib/utils";
import { CallAudioPlayer } from "./call-audio-player";
import { AssistantName, CallDuration, CallStatusBadge, formatCallDate } from "./call-format";
import { CallTranscript } from "./call-transcript";
import { RawLogsDrawer } from "./raw-logs-drawer";
import { useNow } from "./use-calls";

interface CallDetailsSheetProps {
  /** The call shown; kept while the panel animates closed. */
  call: CallRecord | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** A recording address failed (expired): re-read the calls for fresh ones. */
  onRecordingUnavailable: () => void;
}

// Spec §2/§9: calls' panel is 45 to 60% wide; phones get the whole width.
const WIDTH = "w-full sm:w-[60%] lg:w-[45%]";

export function CallDetailsSheet({ call, open, onOpenChange, onRecordingUnavailable }: CallDetailsSheetProps) {
  const [rawLogsOpen, setRawLogsOpen] = useState(false);
  const now = useNow(open && call !== null && !call.end_time);

  return (
    <Sheet
      open={open}
      onOpenChange={(next) => {
        if (!next) setRawLogsOpen(false);
        onOpenChange(next);
      }}
    >
      <SheetContent className={WIDTH}>
        <SheetHeader className="gap-3 px-6 pt-6 pb-0">
          <div className="grid gap-1 pr-8">
            <SheetTitle className="text-xl">Call Details</SheetTitle>
            <SheetDescription>
              {call ? (
                <>
                  {formatCallDate(call.start_time)} · <AssistantName call={call} />
                </>
              ) : (
                "Call Details"
              )}
            </SheetDescription>
          </div>
          <Button variant="outline" size="sm" className="w-fit" disabled={!call} onClick={() => setRawLogsOpen(true)}>
            <FileJson />
            View Raw Logs
          </Button>
        </SheetHeader>

        {call && (
          <div className="grid gap-7 px-6 pt-2 pb-8">
            <Section title="Call Information">
              <dl className="grid grid-cols-2 gap-x-6 gap-y-4 rounded-lg border p-4 sm:grid-cols-3">
                <Field label="Date" className="col-span-2 sm:col-span-1">
                  {formatCallDate(call.start_time)}
                </Field>
                <Field label="Type">{callType(call.logs)}</Field>
                <Field label="Assistant">
                  <AssistantName call={call} />
                </Field>
                <Field label="Duration">
                  <CallDuration call={call} />
                </Field>
                <Field label="Cost">
                  <span className="tabular-nums">{formatCost(call.cost)}</span>
                </Field>
                <Field label="Status">
                  <CallStatusBadge call={call} />
                </Field>
                {call.caller_number && <Field label="Caller">{call.caller_number}</Field>}
                {call.called_number && <Field label="Number Called">{call.called_number}</Field>}
                <Field label="End Reason" wide>
                  {call.ended_reason ?? <span className="text-muted-foreground">{call.end_time ? "N/A" : "Call in progress"}</span>}
                </Field>
              </dl>
            </Section>

            <Section title="Call Audio">
              <CallAudioPlayer
                key={call.id}
                src={call.recording_url}
                fallbackDurationMs={callDurationMs(call, now)}
                onUnavailable={onRecordingUnavailable}
              />
            </Section>

            <Separator />

            <Section title="Conversation Transcript">
              <CallTranscript logs={call.logs} />
            </Section>
          </div>
        )}
        <RawLogsDrawer logs={call?.logs ?? null} open={rawLogsOpen} onOpenChange={setRawLogsOpen} />
      </SheetContent>
    </Sheet>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="grid gap-3" aria-label={title}>
      <h3 className="text-sm font-semibold">{title}</h3>
      {children}
    </section>
  );
}

function Field({ label, wide, className, children }: { label: string; wide?: boolean; className?: string; children: ReactNode }) {
  return (
    <div className={cn("grid min-w-0 gap-1", wide && "col-span-2 sm:col-span-3", className)} data-field={label}>
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="text-sm break-words">{children}</dd>
    </div>
  );
}
