import type * as React from "react";
import { Toaster as Sonner } from "sonner";
import type { ToasterProps } from "sonner";
import {
  CircleCheckIcon,
  InfoIcon,
  Loader2Icon,
  OctagonXIcon,
  TriangleAlertIcon,
} from "lucide-react";

/** App-wide toast outlet; mount once near the root and call `toast()` from "sonner". */
function Toaster(props: ToasterProps) {
  return (
    <Sonner
      theme="light"
      className="toaster group"
      icons={{
        success: <CircleCheckIcon className="size-4" />,
        info: <InfoIcon className="size-4" />,
        warning: <TriangleAlertIcon className="size-4" />,
        error: <OctagonXIcon className="size-4" />,
        loading: <Loader2Icon className="size-4 animate-spin" />,
      }}
      style={
        {
          "--normal-bg": "var(--popover)",
          "--normal-text": "var(--popover-foreground)",
          "--normal-border": "var(--border)",
          "--border-radius": "var(--radius)",
        } as React.CSSProperties
      }
      {...props}
    />
  );
}

export { Toaster };
import { toast } from "sonner";

export { toast };

/** An action failed: `title` says which, and the error's own words (ours are written for users) follow beneath. */
export function toastFailure(title: string, err: unknown) {
  toast.error(title, { description: err instanceof Error ? err.message : undefined });
}
