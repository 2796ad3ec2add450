import * as React from "react";
import { Dialog as DialogPrimitive } from "radix-ui";
import { XIcon } from "lucide-react";

import { cn } from "@/lib/utils";
import { modalContentClassName, overlayClassName, slotted } from "@/components/ui/slotted";

const Dialog = slotted(DialogPrimitive.Root, "dialog");
const DialogTrigger = slotted(DialogPrimitive.Trigger, "dialog-trigger");
const DialogPortal = slotted(DialogPrimitive.Portal, "dialog-portal");
const DialogClose = slotted(DialogPrimitive.Close, "dialog-close");
const DialogOverlay = slotted(DialogPrimitive.Overlay, "dialog-overlay", overlayClassName);

type DialogContentProps = React.ComponentProps<typeof DialogPrimitive.Content> & {
  showCloseButton?: boolean;
};

function DialogContent({
  className,
  children,
  showCloseButton = true,
  ...props
}: DialogContentProps) {
  return (
    <DialogPortal>
      <DialogOverlay />
      <DialogPrimitive.Content
        data-slot="dialog-content"
        className={cn(modalContentClassName, "max-h-[calc(100dvh-2rem)] overflow-y-auto", className)}
        {...props}
      >
        {children}
        {showCloseButton && (
          <DialogPrimitive.Close
            data-slot="dialog-close"
            className="absolute top-4 right-4 rounded-xs opacity-70 transition-opacity hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:outline-hidden disabled:pointer-events-none [&_svg]:pointer-events-none [&_svg]:shrink-0 [&_svg:not([class*='size-'])]:size-4"
          >
            <XIcon />
            <span className="sr-only">Close</span>
          </DialogPrimitive.Close>
        )}
      </DialogPrimitive.Content>
    </DialogPortal>
  );
}

const DialogHeader = slotted(
  "div",
  "dialog-header",
  "flex flex-col gap-2 text-center sm:text-left",
);
const DialogFooter = slotted(
  "div",
  "dialog-footer",
  "flex flex-col-reverse gap-2 sm:flex-row sm:justify-end",
);
const DialogTitle = slotted(
  DialogPrimitive.Title,
  "dialog-title",
  "text-lg leading-none font-semibold",
);
const DialogDescription = slotted(
  DialogPrimitive.Description,
  "dialog-description",
  "text-sm text-muted-foreground",
);

export {
  Dialog,
  DialogClose,
  DialogContent,
  DialogDescription,
  DialogFooter,
  DialogHeader,
  DialogOverlay,
  DialogPortal,
  DialogTitle,
  DialogTrigger,
};
