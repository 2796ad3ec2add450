import { Mic, MicOff, Send } from "lucide-react";
import { useState, type KeyboardEvent } from "react";
import { Button } from "@/components/ui/button";
import { Textarea } from "@/components/ui/textarea";
import { Tooltip, TooltipContent, TooltipTrigger } from "@/components/ui/tooltip";
import { cn } from "@/lib/utils";
import type { CallPhase } from "./call-state";

interface MessageBoxProps {
  phase: CallPhase;
  micOn: boolean;
  /** 0..1, drives the ring around the microphone button. */
  micLevel: number;
  onToggleMic: () => void;
  /** True when the message went out (the box is cleared then). */
  onSend: (text: string) => boolean;
}

function placeholderOf(phase: CallPhase): string {
  if (phase === "connecting") return "Connecting...";
  if (phase === "active") return "Type a message...";
  return "Start call to begin testing";
}

/** Microphone toggle, message box and send button (spec §2); Enter without Shift sends. */
export function MessageBox({ phase, micOn, micLevel, onToggleMic, onSend }: MessageBoxProps) {
  const [text, setText] = useState("");
  const active = phase === "active";
  const canSend = active && text.trim() !== "";

  const send = () => {
    if (onSend(text)) setText("");
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key !== "Enter" || e.shiftKey || e.nativeEvent.isComposing) return;
    e.preventDefault();
    send();
  };

  // Speech shows as a soft ring that grows with the level (RMS of speech is rarely above 0.3).
  const ring = active && micOn ? Math.min(1, micLevel * 4) : 0;
  const micLabel = micOn ? "Turn microphone off" : "Turn microphone on";

  return (
    <div className="flex items-end gap-2 border-t bg-background px-4 py-3 sm:px-6 sm:py-4">
      <Tooltip>
        <TooltipTrigger asChild>
          <Button
            type="button"
            variant={active && !micOn ? "destructive" : "outline"}
            size="icon"
            className={cn("relative transition-shadow", active && micOn && "border-primary/40 text-primary")}
            style={ring > 0 ? { boxShadow: `0 0 0 ${1 + ring * 5}px color-mix(in oklch, var(--primary) ${15 + ring * 20}%, transparent)` } : undefined}
            disabled={!active}
            aria-pressed={active ? micOn : undefined}
            aria-label={micLabel}
            onClick={onToggleMic}
          >
            {micOn || !active ? <Mic /> : <MicOff />}
          </Button>
        </TooltipTrigger>
        <TooltipContent>{micLabel}</TooltipContent>
      </Tooltip>
      <Textarea
        value={text}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        disabled={!active}
        placeholder={placeholderOf(phase)}
        aria-label="Message"
        rows={1}
        maxLength={10_000}
        className="max-h-32 min-h-9 resize-none py-[7px]"
      />
      <Button type="button" size="icon" disabled={!canSend} aria-label="Send message" onClick={send}>
        <Send />
      </Button>
    </div>
  );
}
