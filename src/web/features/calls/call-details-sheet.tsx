import { FileJson, FlaskConical, History, PhoneOff, Trash2 } from "lucide-react";
import { Link } from "react-router";
import { REPLAY_MESSAGES, SAVE_AS_TEST_MESSAGES } from "@shared/replay";
import { useState, type ReactNode } from "react";
import { toast } from "sonner";
import { CALL_MESSAGES, callDurationMs, callVersionLabel, COST_TEXTS, formatCallCost, type CallSummary } from "@shared/call-records";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { Button } from "@/components/ui/button";
import { Separator } from "@/components/ui/separator";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { cn } from "@/lib/utils";
import { Spinner } from "@/components/ui/spinner";
import { CallAnalysisPanel } from "./call-analysis";
import { CallAudioPlayer } from "./call-audio-player";
import { CallCostBreakdown } from "./call-cost-breakdown";
import { CallTurnLatency } from "./call-turn-latency";
import { TURN_LATENCY_TEXTS } from "@shared/calls";
import { AssistantName, CallDuration, CallStatusBadge, formatCallDate } from "./call-format";
import { CallReplayDialog } from "./call-replay";
import { CallTranscript } from "./call-transcript";
import { RawLogsDrawer } from "./raw-logs-drawer";
import { SaveAsTestDialog } from "./save-as-test-dialog";
import { useNow } from "@/hooks/use-now";
import { CALL_DIRECTION_LABELS, isUnanswered, OUTBOUND_TEXTS } from "@shared/outbound";
import { PERMISSIONS } from "@shared/roles";
import { useCan } from "@/lib/use-membership";
import { useCall, useCancelCall, useDeleteCall, useReplayCall } from "./use-calls";

interface CallDetailsSheetProps {
  /** The row shown; kept while the panel animates closed. The whole record is read when it opens. */
  summary: CallSummary | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

// Spec §2/§9: calls' panel is 45 to 60% wide; phones get the whole width.
const WIDTH = "w-full sm:w-[60%] lg:w-[45%]";

export function CallDetailsSheet({ summary, open, onOpenChange }: CallDetailsSheetProps) {
  const [rawLogsOpen, setRawLogsOpen] = useState(false);
  const [confirming, setConfirming] = useState<{ id: string; name: string } | null>(null);
  const record = useCall(summary?.id ?? null);
  const remove = useDeleteCall();
  const mayDelete = useCan("deleteCalls");
  const mayPlay = useCan("supervise");
  const mayReplay = useCan("build");
  // Whoever may place a call may cancel it (the server checks the same permission).
  const mayCancel = useCan("build");
  const cancelCall = useCancelCall();
  const replay = useReplayCall();
  const [replayOpen, setReplayOpen] = useState(false);
  const [savingAsTest, setSavingAsTest] = useState(false);
  const full = record.data?.id === summary?.id ? record.data : undefined;
  // The row's values at once; the record's (fresher, with the transcript) once it is read.
  const call = full ?? summary;
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
          <div className="flex flex-wrap gap-2">
            {mayCancel && call && !call.end_time && isUnanswered(call.twilio_status) && (
              <Button
                variant="outline"
                size="sm"
                className="w-fit text-destructive hover:text-destructive"
                disabled={cancelCall.isPending}
                onClick={() =>
                  cancelCall.mutate(call.id, {
                    onSuccess: () => toast.success(OUTBOUND_TEXTS.cancelled),
                    onError: (err) => toast.error(err instanceof Error ? err.message : OUTBOUND_TEXTS.cancelFailed),
                  })
                }
              >
                <PhoneOff />
                {cancelCall.isPending ? OUTBOUND_TEXTS.cancelling : OUTBOUND_TEXTS.cancel}
              </Button>
            )}
            <Button variant="outline" size="sm" className="w-fit" disabled={!full} onClick={() => setRawLogsOpen(true)}>
              <FileJson />
              View Raw Logs
            </Button>
            {mayReplay && (
              <Button
                variant="outline"
                size="sm"
                className="w-fit"
                disabled={!full || !full.end_time || !full.assistant_id}
                title={full && !full.end_time ? REPLAY_MESSAGES.inProgress : undefined}
                onClick={() => {
                  if (!full) return;
                  setReplayOpen(true);
                  replay.mutate(full.id);
                }}
              >
                <History />
                {REPLAY_MESSAGES.button}
              </Button>
            )}
            {mayReplay && (
              <Button variant="outline" size="sm" className="w-fit" disabled={!full || !full.end_time || !full.assistant_id} onClick={() => setSavingAsTest(true)}>
                <FlaskConical />
                {SAVE_AS_TEST_MESSAGES.button}
              </Button>
            )}
            {/* Deleting calls is for admins (the server refuses others). */}
            {mayDelete && (
              <Button
                variant="outline"
                size="sm"
                className="w-fit text-destructive hover:text-destructive"
                // The engine still writes to a call in progress; the server refuses to delete it too.
                disabled={!call || !call.end_time}
                title={call && !call.end_time ? CALL_MESSAGES.inProgressDelete : undefined}
                onClick={() => call && setConfirming({ id: call.id, name: `The call of ${formatCallDate(call.start_time)}` })}
              >
                <Trash2 />
                Delete
              </Button>
            )}
          </div>
        </SheetHeader>

        {call && (
          <div className="grid gap-7 px-6 pt-2 pb-8">
            <Section title="Analysis">
              {full ? <CallAnalysisPanel callId={full.id} analysis={full.analysis} ended={full.end_time !== null} /> : <Loading />}
            </Section>

            <Section title="Call Information">
              <dl className="grid grid-cols-2 gap-x-6 gap-y-4 rounded-lg border p-4 sm:grid-cols-3">
                <Field label="Date" className="col-span-2 sm:col-span-1">
                  {formatCallDate(call.start_time)}
                </Field>
                <Field label="Type">{call.type}</Field>
                <Field label="Assistant">
                  <AssistantName call={call} />
                </Field>
                {/* A phone call never runs the draft: one not answered yet has no version. */}
                <Field label="Version">{callVersionLabel(call)}</Field>
                <Field label="Duration">
                  <CallDuration call={call} />
                </Field>
                {/* Named by what it is: the test-call tariff, or a phone call's real cost. */}
                <Field label={COST_TEXTS.basis[call.cost_basis]}>
                  <span className="tabular-nums" title={COST_TEXTS.basisHint[call.cost_basis]}>
                    {formatCallCost(call.cost, call.cost_basis)}
                  </span>
                </Field>
                <Field label="Status">
                  <CallStatusBadge call={call} />
                </Field>
                <Field label="Direction">{CALL_DIRECTION_LABELS[call.direction]}</Field>
                {call.campaign_id && (
                  <Field label={OUTBOUND_TEXTS.campaign}>
                    <Link className="font-medium text-primary underline-offset-4 hover:underline" to={`/campaigns/${call.campaign_id}`}>
                      {full?.campaign_name ?? OUTBOUND_TEXTS.openCampaign}
                    </Link>
                  </Field>
                )}
                {full?.caller_number && <Field label="Caller">{full.caller_number}</Field>}
                {call.called_number && <Field label="Number Called">{call.called_number}</Field>}
                {full && (full.call_sid || full.sip_call_id) && <Field label="Carrier">{full.carrier === "sip" ? "SIP trunk" : "Twilio"}</Field>}
                {full?.sip_call_id && (
                  <Field label="SIP Call-ID" wide>
                    <span className="font-mono text-xs break-all select-all">{full.sip_call_id}</span>
                  </Field>
                )}
                {full?.call_sid && (
                  <Field label="Twilio Call SID" wide>
                    <span className="font-mono text-xs break-all select-all">{full.call_sid}</span>
                  </Field>
                )}
                <Field label="End Reason" wide>
                  {call.ended_reason ?? <span className="text-muted-foreground">{call.end_time ? "N/A" : "Call in progress"}</span>}
                </Field>
              </dl>
            </Section>

            <Section title="Cost Breakdown">
              {full ? <CallCostBreakdown call={full} /> : <Loading />}
            </Section>

            <Section title="Call Audio">
              {!mayPlay ? (
                <p className="text-sm text-muted-foreground">{PERMISSIONS.supervise.message}</p>
              ) : full ? (
                <CallAudioPlayer
                  key={full.id}
                  src={full.recording_url}
                  fallbackDurationMs={callDurationMs(full, now)}
                  onUnavailable={() => void record.refetch()}
                />
              ) : (
                <Loading />
              )}
            </Section>

            {full?.logs?.turns && full.logs.turns.length > 0 && (
              <Section title={TURN_LATENCY_TEXTS.title}>
                <CallTurnLatency turns={full.logs.turns} />
              </Section>
            )}

            <Separator />

            <Section title="Conversation Transcript">{full ? <CallTranscript logs={full.logs} /> : <Loading />}</Section>
          </div>
        )}
        <CallReplayDialog
          replay={replay}
          open={replayOpen}
          onOpenChange={(next) => {
            setReplayOpen(next);
            if (!next) replay.reset();
          }}
        />
        <SaveAsTestDialog call={savingAsTest && full ? full : null} onOpenChange={setSavingAsTest} />
        <RawLogsDrawer logs={full?.logs ?? null} open={rawLogsOpen} onOpenChange={setRawLogsOpen} />
        <ConfirmDeleteDialog
          item={confirming}
          title="Delete this call?"
          consequence="will be deleted permanently, with its recording and transcript. This cannot be undone."
          onOpenChange={(isOpen) => !isOpen && setConfirming(null)}
          onConfirm={async (item) => {
            try {
              await remove.mutateAsync(item.id);
            } catch (err) {
              toast.error(err instanceof Error ? err.message : "Failed to delete the call");
              throw err;
            }
            toast.success("Call deleted");
            onOpenChange(false);
          }}
        />
      </SheetContent>
    </Sheet>
  );
}

function Loading() {
  return (
    <div className="flex items-center gap-2 text-sm text-muted-foreground">
      <Spinner label={CALL_MESSAGES.loading} className="size-4" />
      {CALL_MESSAGES.loading}
    </div>
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
