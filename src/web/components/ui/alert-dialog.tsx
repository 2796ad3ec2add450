import * as React from "react";
import { AlertDialog as AlertDialogPrimitive } from "radix-ui";
import type { VariantProps } from "class-variance-authority";

import { buttonVariants } from "@/components/ui/button";
import { cn } from "@/lib/utils";
import { modalContentClassName, overlayClassName, slotted } from "@/components/ui/slotted";

const AlertDialog = slotted(AlertDialogPrimitive.Root, "alert-dialog");
const AlertDialogTrigger = slotted(AlertDialogPrimitive.Trigger, "alert-dialog-trigger");
const AlertDialogPortal = slotted(AlertDialogPrimitive.Portal, "alert-dialog-portal");
const AlertDialogOverlay = slotted(
  AlertDialogPrimitive.Overlay,
  "alert-dialog-overlay",
  overlayClassName,
);

function AlertDialogContent({
  className,
  ...props
}: React.ComponentProps<typeof AlertDialogPrimitive.Content>) {
  return (
    <AlertDialogPortal>
      <AlertDialogOverlay />
      <AlertDialogPrimitive.Content
        data-slot="alert-dialog-content"
        className={cn(modalContentClassName, className)}
        {...props}
      />
    </AlertDialogPortal>
  );
}

const AlertDialogHeader = slotted(
  "div",
  "alert-dialog-header",
  "flex flex-col gap-2 text-center sm:text-left",
);
const AlertDialogFooter = slotted(
  "div",
  "alert-dialog-footer",
  "flex flex-col-reverse gap-2 sm:flex-row sm:justify-end",
);
const AlertDialogTitle = slotted(
  AlertDialogPrimitive.Title,
  "alert-dialog-title",
  "text-lg font-semibold",
);
const AlertDialogDescription = slotted(
  AlertDialogPrimitive.Description,
  "alert-dialog-description",
  "text-sm text-muted-foreground",
);

type ButtonStyle = VariantProps<typeof buttonVariants>;

/** A button that closes the dialog: `Part` is Radix's Action or Cancel, styled as a Button whose variant defaults to `defaultVariant`. */
function closingButton(
  Part: typeof AlertDialogPrimitive.Action | typeof AlertDialogPrimitive.Cancel,
  slot: string,
  defaultVariant: ButtonStyle["variant"],
) {
  function ClosingButton({ className, variant = defaultVariant, size, ...props }: React.ComponentProps<typeof AlertDialogPrimitive.Action> & ButtonStyle) {
    return <Part data-slot={slot} className={cn(buttonVariants({ variant, size }), className)} {...props} />;
  }
  ClosingButton.displayName = slot;
  return ClosingButton;
}

/** Confirms; pass `variant="destructive"` for deletions. Closes the dialog on click. */
const AlertDialogAction = closingButton(AlertDialogPrimitive.Action, "alert-dialog-action", "default");
const AlertDialogCancel = closingButton(AlertDialogPrimitive.Cancel, "alert-dialog-cancel", "outline");

export {
  AlertDialog,
  AlertDialogPortal,
  AlertDialogOverlay,
  AlertDialogTrigger,
  AlertDialogContent,
  AlertDialogHeader,
  AlertDialogFooter,
  AlertDialogTitle,
  AlertDialogDescription,
  AlertDialogAction,
  AlertDialogCancel,
};
