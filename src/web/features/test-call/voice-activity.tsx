import { cn } from "@/lib/utils";
import type { Levels } from "./use-test-call";

const BAR_WEIGHTS = [0.45, 0.8, 1, 0.7, 0.5];

/** Five bars that follow a 0..1 level (speech RMS rarely goes above ~0.3, hence the gain). */
function LevelBars({ level, className }: { level: number; className?: string }) {
  const scaled = Math.min(1, level * 4);
  return (
    <span className="flex h-4 items-center gap-[3px]" aria-hidden="true">
      {BAR_WEIGHTS.map((weight, i) => (
        <span
          key={i}
          className={cn("w-[3px] rounded-full transition-[height] duration-100", className)}
          style={{ height: `${Math.max(3, Math.round(16 * Math.max(0.18, scaled * weight)))}px` }}
        />
      ))}
    </span>
  );
}

/** Who is talking right now: the assistant's voice, or the caller's microphone. */
export function VoiceActivity({ levels, micOn }: { levels: Levels; micOn: boolean }) {
  const speaking = levels.assistantSpeaking;
  return (
    <div className="flex items-center gap-2 border-t bg-muted/30 px-4 py-2 text-xs text-muted-foreground sm:px-6" data-testid="voice-activity">
      {speaking ? (
        <>
          <LevelBars level={Math.max(levels.assistant, 0.08)} className="bg-primary" />
          <span className="font-medium text-primary">Assistant is speaking</span>
        </>
      ) : micOn ? (
        <>
          <LevelBars level={levels.mic} className="bg-success" />
          <span>Listening</span>
        </>
      ) : (
        <>
          <LevelBars level={0} className="bg-muted-foreground/40" />
          <span>Microphone is off</span>
        </>
      )}
    </div>
  );
}
