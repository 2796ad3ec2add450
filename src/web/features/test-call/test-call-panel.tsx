import { AlertCircle, Settings } from "lucide-react";
import { useEffect, useMemo } from "react";
import { Link } from "react-router";
import { SETTINGS_CARDS, settingsPath } from "@shared/settings";
import { Button } from "@/components/ui/button";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { CallButton, CallFigures, StatusLine } from "./call-status";
import { isLive, transcriptRows, type Notice } from "./call-state";
import { MessageBox } from "./message-box";
import { TranscriptView } from "./transcript-view";
import { useTestCall } from "./use-test-call";
import { VoiceActivity } from "./voice-activity";

export interface TestCallPanelProps {
  assistant: { id: string; name: string } | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

function StartNotice({ notice }: { notice: Notice }) {
  return (
    <div role="alert" className="mx-4 mt-5 flex gap-3 rounded-lg border border-destructive/30 bg-destructive/5 px-4 py-3 text-sm sm:mx-6">
      <AlertCircle className="mt-0.5 size-4 shrink-0 text-destructive" aria-hidden="true" />
      <div className="grid min-w-0 gap-1">
        <p className="font-medium text-destructive">{notice.title}</p>
        <p className="text-foreground/80">{notice.message}</p>
        {notice.settingsLink && (
          <Button asChild variant="outline" size="sm" className="mt-2 w-fit">
            <Link to={settingsPath(SETTINGS_CARDS.openaiKey)}>
              <Settings />
              Go to Settings
            </Link>
          </Button>
        )}
      </div>
    </div>
  );
}

/**
 * The Test Call panel (spec §2, §4 "Test call"): talk to an assistant in the browser through
 * the server's call engine, with a live transcript. Closing the panel ends a live call
 * ("Sheet closed"); the call's state lives here, outside the sheet's content, so closing
 * does not drop it before it has ended.
 */
export function TestCallPanel({ assistant, open, onOpenChange }: TestCallPanelProps) {
  const call = useTestCall(assistant);
  const { view, levels, elapsedMs, start, end, sendMessage, toggleMic, reset } = call;
  const live = isLive(view.phase);
  const rows = useMemo(() => transcriptRows(view.entries, view.local), [view.entries, view.local]);

  // Each opening (or another assistant) starts from a clean panel, unless a call is still live.
  useEffect(() => {
    if (open) reset();
  }, [open, assistant?.id, reset]);

  const onSheetChange = (next: boolean) => {
    if (!next && live) end("Sheet closed");
    onOpenChange(next);
  };

  return (
    <Sheet open={open} onOpenChange={onSheetChange}>
      {/* Spec §2/§9: 60% on small screens, 45% on large; on phones 60% is too narrow to use. */}
      {/* Spec §9: 60% on small screens (from sm, 640 px), 45% on large (from lg, 1024 px); full width below 640 px. */}
      <SheetContent className="w-full gap-0 overflow-hidden sm:w-[60%] sm:max-w-[60%] lg:w-[45%] lg:max-w-[45%]">
        <SheetHeader className="gap-3 border-b px-4 pt-5 pb-4 sm:px-6 sm:pt-6">
          <SheetTitle className="pr-8 text-xl break-words">Test Call: {assistant?.name || "Assistant"}</SheetTitle>
          <SheetDescription className="sr-only">Talk to your assistant in the browser and follow the transcript.</SheetDescription>
          <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-3">
            <div className="grid min-w-0 gap-1">
              <StatusLine phase={view.phase} text={view.status} />
              <CallFigures phase={view.phase} elapsedMs={elapsedMs} outcome={view.outcome} />
            </div>
            <CallButton phase={view.phase} ending={view.ending} onStart={() => void start()} onEnd={() => end()} />
          </div>
        </SheetHeader>

        <TranscriptView rows={rows} notice={view.notice ? <StartNotice notice={view.notice} /> : undefined} />

        {view.phase === "active" && <VoiceActivity levels={levels} micOn={view.micOn} />}
        <MessageBox phase={view.phase} micOn={view.micOn} micLevel={levels.mic} onToggleMic={toggleMic} onSend={sendMessage} />
      </SheetContent>
    </Sheet>
  );
}
