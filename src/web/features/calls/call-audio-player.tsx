import { AlertCircle, Download, Pause, Play } from "lucide-react";
import { useEffect, useRef, useState, type CSSProperties } from "react";
import { CALL_MESSAGES } from "@shared/call-records";
import { formatDuration } from "@shared/calls";
import { Button } from "@/components/ui/button";
import { cn } from "@/lib/utils";

interface CallAudioPlayerProps {
  /** The recording's signed address, or null without a recording. */
  src: string | null;
  /** The call's own length: shown until the recording's metadata says better. */
  fallbackDurationMs: number;
  /** The address failed (most likely it expired): ask for fresh ones. */
  onUnavailable: () => void;
}

/**
 * Call Audio (spec §2; playback works here, design §1). The list is re-read while calls are in
 * progress and every read signs a new address, so the player keeps the address it started with
 * and switches only when that one fails — otherwise each refresh would restart the recording.
 */
export function CallAudioPlayer({ src, fallbackDurationMs, onUnavailable }: CallAudioPlayerProps) {
  const audio = useRef<HTMLAudioElement>(null);
  const [pinned, setPinned] = useState(src);
  const [failed, setFailed] = useState(false);
  // A fresh address was asked for; the next different `src` is taken. The automatic ask happens
  // once per panel, so a recording that is really gone does not fetch the list forever.
  const [wantFresh, setWantFresh] = useState(false);
  const [askedOnce, setAskedOnce] = useState(false);
  const [playing, setPlaying] = useState(false);
  const [position, setPosition] = useState(0);
  const [mediaDuration, setMediaDuration] = useState<number | null>(null);

  // A recording that appears later (the call just ended), or a fresh address after a failure.
  if (src && src !== pinned && (pinned === null || wantFresh)) {
    setPinned(src);
    setFailed(false);
    setWantFresh(false);
  }

  const askFresh = () => {
    setWantFresh(true);
    onUnavailable();
  };

  // Follow the playhead smoothly while playing; "timeupdate" alone moves in ~250 ms steps.
  useEffect(() => {
    if (!playing) return;
    let frame = requestAnimationFrame(function step() {
      if (audio.current) setPosition(audio.current.currentTime);
      frame = requestAnimationFrame(step);
    });
    return () => cancelAnimationFrame(frame);
  }, [playing]);

  const available = pinned !== null && !failed;
  const totalSeconds = mediaDuration ?? fallbackDurationMs / 1000;
  const progress = totalSeconds > 0 ? Math.min(100, (position / totalSeconds) * 100) : 0;

  const toggle = () => {
    const el = audio.current;
    if (!el) return;
    if (el.paused) {
      el.play().catch(() => setPlaying(false));
    } else {
      el.pause();
    }
  };

  const seek = (seconds: number) => {
    const el = audio.current;
    if (!el || !Number.isFinite(seconds)) return;
    el.currentTime = seconds;
    setPosition(seconds);
  };

  return (
    <div className="grid gap-3 rounded-lg border bg-muted/20 p-4" data-testid="call-audio">
      <div className="flex items-center justify-between gap-3">
        <p className={cn("text-sm", available ? "font-medium" : "text-muted-foreground")}>
          {pinned ? CALL_MESSAGES.recordingAvailable : CALL_MESSAGES.noRecording}
        </p>
        {available && (
          <Button asChild variant="ghost" size="sm" className="-my-1 text-muted-foreground">
            <a href={pinned} download>
              <Download />
              Download
            </a>
          </Button>
        )}
      </div>

      <div className="flex items-center gap-3">
        <Button
          type="button"
          size="icon"
          className="rounded-full"
          disabled={!available}
          aria-label={playing ? "Pause recording" : "Play recording"}
          onClick={toggle}
        >
          {playing ? <Pause className="fill-current" /> : <Play className="ml-0.5 fill-current" />}
        </Button>
        <input
          type="range"
          aria-label="Seek"
          min={0}
          max={totalSeconds > 0 ? totalSeconds : 0}
          step={0.01}
          value={Math.min(position, totalSeconds)}
          disabled={!available || mediaDuration === null}
          onChange={(e) => seek(Number(e.target.value))}
          style={{ "--progress": `${progress}%` } as CSSProperties}
          className={cn(
            "h-1.5 min-w-0 flex-1 cursor-pointer appearance-none rounded-full bg-[linear-gradient(to_right,var(--color-primary)_var(--progress),var(--color-border)_var(--progress))] outline-none disabled:cursor-default",
            "focus-visible:ring-[3px] focus-visible:ring-ring/50",
            "[&::-webkit-slider-thumb]:size-3.5 [&::-webkit-slider-thumb]:appearance-none [&::-webkit-slider-thumb]:rounded-full [&::-webkit-slider-thumb]:border-2 [&::-webkit-slider-thumb]:border-background [&::-webkit-slider-thumb]:bg-primary [&::-webkit-slider-thumb]:shadow",
            "[&::-moz-range-thumb]:size-3.5 [&::-moz-range-thumb]:rounded-full [&::-moz-range-thumb]:border-2 [&::-moz-range-thumb]:border-background [&::-moz-range-thumb]:bg-primary",
            "disabled:[&::-webkit-slider-thumb]:hidden disabled:[&::-moz-range-thumb]:hidden",
          )}
        />
        <span className="shrink-0 text-xs text-muted-foreground tabular-nums" data-testid="audio-progress">
          {formatDuration(position * 1000)} / {formatDuration(totalSeconds * 1000)}
        </span>
      </div>

      {pinned && failed && (
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-destructive" role="alert">
          <AlertCircle className="size-3.5" aria-hidden="true" />
          <span>The recording could not be loaded.</span>
          <button type="button" className="font-medium underline underline-offset-2 hover:text-destructive/80" onClick={askFresh}>
            Try again
          </button>
        </div>
      )}

      {pinned && (
        <audio
          ref={audio}
          src={pinned}
          preload="metadata"
          className="hidden"
          onLoadedMetadata={(e) => {
            const seconds = e.currentTarget.duration;
            if (Number.isFinite(seconds) && seconds > 0) setMediaDuration(seconds);
          }}
          onPlay={() => setPlaying(true)}
          onPause={() => setPlaying(false)}
          onEnded={(e) => {
            setPlaying(false);
            setPosition(e.currentTarget.duration || position);
          }}
          onTimeUpdate={(e) => setPosition(e.currentTarget.currentTime)}
          onError={() => {
            setFailed(true);
            setPlaying(false);
            if (!askedOnce) {
              setAskedOnce(true);
              askFresh();
            }
          }}
        />
      )}
    </div>
  );
}
