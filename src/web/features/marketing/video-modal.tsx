import { RotateCwIcon, Volume2Icon } from "lucide-react";
import { useEffect, useRef, useState } from "react";
import type { CustomerCard } from "@shared/marketing";
import { Dialog, DialogContent, DialogDescription, DialogTitle } from "@/components/ui/dialog";

interface VideoModalProps {
  card: CustomerCard;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The signed address was refused (it expires after an hour): fetch fresh ones. */
  onExpired: () => void;
}

/** The customer-story player: plays as soon as it opens and stops (paused, rewound) when dismissed. */
export default function VideoModal({ card, open, onOpenChange, onExpired }: VideoModalProps) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent className="gap-0 overflow-hidden border-white/10 bg-zinc-950 p-0 text-white sm:max-w-4xl">
        <div className="flex items-center justify-between gap-4 py-4 pr-14 pl-5">
          {/* The logo already shows the name, so the title is for assistive technology. */}
          <img src={card.logoImage} alt="" className="h-7 w-auto" />
          <DialogTitle className="sr-only">{card.title}</DialogTitle>
          <DialogDescription className="text-xs text-zinc-400">Customer story</DialogDescription>
        </div>
        {/* Keyed by story so switching cards starts a fresh element rather than reusing a half-played one. */}
        <StoryVideo key={card.id} card={card} open={open} onExpired={onExpired} />
      </DialogContent>
    </Dialog>
  );
}

function StoryVideo({ card, open, onExpired }: { card: CustomerCard; open: boolean; onExpired: () => void }) {
  const videoRef = useRef<HTMLVideoElement>(null);
  const [mutedByPolicy, setMutedByPolicy] = useState(false);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    const video = videoRef.current;
    if (!video) return;
    if (!open) {
      // Dismissed: silence it at once (the dialog still animates out) and rewind for next time.
      video.pause();
      video.currentTime = 0;
      return;
    }
    video.play().catch((err: unknown) => {
      // Browsers may refuse sound without a recent gesture; muted playback is always allowed.
      if (!(err instanceof DOMException) || err.name !== "NotAllowedError") return;
      video.muted = true;
      setMutedByPolicy(true);
      video.play().catch(() => undefined);
    });
  }, [open, card.videoUrl]);

  const retry = () => {
    setFailed(false);
    onExpired();
  };

  return (
    <div className="relative aspect-video w-full bg-black">
      <video
        ref={videoRef}
        data-testid="story-video"
        src={card.videoUrl}
        poster={card.backgroundImage}
        controls
        autoPlay
        playsInline
        preload="auto"
        onError={() => setFailed(true)}
        onVolumeChange={(e) => {
          if (!e.currentTarget.muted) setMutedByPolicy(false);
        }}
        className="size-full"
      >
        {/* Off by default: the clip shows its narration on screen; the player's menu turns them on. */}
        <track kind="captions" src={card.captionsUrl} srcLang="en" label="English" />
      </video>
      {mutedByPolicy && (
        <button
          type="button"
          onClick={() => {
            const video = videoRef.current;
            if (video) video.muted = false;
          }}
          className="absolute top-4 left-4 inline-flex items-center gap-2 rounded-full bg-white px-4 py-2 text-sm font-semibold text-zinc-950 shadow-lg outline-none focus-visible:ring-2 focus-visible:ring-violet-400"
        >
          <Volume2Icon className="size-4" aria-hidden="true" />
          Tap to unmute
        </button>
      )}
      {failed && (
        <div role="alert" className="absolute inset-0 flex flex-col items-center justify-center gap-4 bg-black/80 p-6 text-center">
          <p className="text-zinc-200">This video could not be loaded.</p>
          <button
            type="button"
            onClick={retry}
            className="inline-flex h-9 items-center gap-2 rounded-full bg-white px-4 text-sm font-semibold text-zinc-950 outline-none focus-visible:ring-2 focus-visible:ring-violet-400"
          >
            <RotateCwIcon className="size-4" aria-hidden="true" />
            Try again
          </button>
        </div>
      )}
    </div>
  );
}
