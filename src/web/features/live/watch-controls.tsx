import { Headphones, Headset, PhoneOff, Send, Undo2, VolumeX } from "lucide-react";
import { useState, type KeyboardEvent } from "react";
import { formatDuration } from "@shared/calls";
import { GUIDE_MAX_LENGTH, LIVE_TEXTS } from "@shared/live";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { isOver, takeOverState, type WatchView } from "./live-state";
import type { Heard } from "./use-watch-call";

interface WatchControlsProps {
  view: WatchView;
  heard: Heard;
  micStarting: boolean;
  onListen: (on: boolean) => void;
  onTakeOver: () => void;
  onHandBack: () => void;
  onEndCall: () => boolean;
}

/** Listen, Take over / Hand back and End call, for the call open on the board. */
export function WatchControls({ view, heard, micStarting, onListen, onTakeOver, onHandBack, onEndCall }: WatchControlsProps) {
  const [confirming, setConfirming] = useState(false);
  const live = view.control !== null && !isOver(view);
  const listening = view.control?.listening ?? false;
  const { canTakeOver, canHandBack, blockedBy } = takeOverState(view);
  // The level shows as a soft ring on the Listen button (RMS of speech is rarely above 0.3).
  const ring = Math.min(1, heard.level * 4);

  return (
    <div className="grid gap-2">
      <div className="flex flex-wrap items-center gap-2" role="group" aria-label="Call controls">
        <Button
          variant={listening ? "secondary" : "outline"}
          size="sm"
          disabled={!live}
          aria-pressed={listening}
          onClick={() => onListen(!listening)}
          style={ring > 0 ? { boxShadow: `0 0 0 ${1 + ring * 4}px color-mix(in oklch, var(--primary) ${15 + ring * 20}%, transparent)` } : undefined}
        >
          {listening ? <VolumeX /> : <Headphones />}
          {listening ? "Stop listening" : "Listen"}
        </Button>
        {canHandBack ? (
          <Button variant="secondary" size="sm" onClick={onHandBack}>
            <Undo2 />
            Hand back
          </Button>
        ) : (
          <Button variant="outline" size="sm" disabled={!canTakeOver || micStarting} onClick={onTakeOver} aria-describedby={blockedBy ? "take-over-blocked" : undefined}>
            <Headset />
            {micStarting ? "Taking over..." : "Take over"}
          </Button>
        )}
        <Button variant="outline" size="sm" className="text-destructive hover:text-destructive" disabled={!live} onClick={() => setConfirming(true)}>
          <PhoneOff />
          End call
        </Button>
        {(listening || view.control?.youHaveControl) && (
          <span className="text-xs text-muted-foreground tabular-nums" data-testid="heard" data-played-ms={Math.round(heard.playedMs)}>
            Heard {formatDuration(heard.playedMs)}
          </span>
        )}
      </div>
      {blockedBy && (
        <p id="take-over-blocked" className="text-xs text-muted-foreground">
          {LIVE_TEXTS.alreadyTakenOver(blockedBy)}
        </p>
      )}
      {view.control?.youHaveControl && (
        <p className="text-xs font-medium text-primary" role="status">
          You are talking to the caller; the assistant is silent until you hand back.
        </p>
      )}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title="End this call?"
        description={<>The caller is disconnected now, and the call is recorded as &quot;{LIVE_TEXTS.endedBySupervisor}&quot;.</>}
        action={
          <Button
            variant="destructive"
            onClick={() => {
              onEndCall();
              setConfirming(false);
            }}
          >
            End call
          </Button>
        }
      />
    </div>
  );
}

/** Guide: an instruction for the assistant for the rest of the call. Enter without Shift sends. */
export function GuideBox({ disabled, onGuide }: { disabled: boolean; onGuide: (text: string) => boolean }) {
  const [text, setText] = useState("");
  const canSend = !disabled && text.trim() !== "";
  const send = () => {
    if (canSend && onGuide(text.trim())) setText("");
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    send();
  };
  return (
    <div className="flex items-end gap-2 border-t bg-background px-4 py-3 sm:px-6 sm:py-4">
      <Textarea
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        disabled={disabled}
        placeholder="Tell the assistant what to do next..."
        aria-label="Guidance for the assistant"
        rows={1}
        maxLength={GUIDE_MAX_LENGTH}
        className="max-h-32 min-h-9 resize-none py-[7px]"
      />
      <Button type="button" disabled={!canSend} onClick={send}>
        <Send />
        Guide
      </Button>
    </div>
  );
}
