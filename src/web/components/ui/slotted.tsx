import * as React from "react";

import { cn } from "@/lib/utils";

/**
 * Most primitives are one element or Radix part that names itself with `data-slot` (which styles
 * and tests select on) and, where it has a look, carries its base classes with the caller's
 * `className` merged after them, so that a caller's class wins. This makes such a part in one
 * line; a part with its own logic or children stays a written-out function.
 */
export function slotted<P extends React.ElementType>(part: P, slot: string, baseClassName?: string) {
  const Element = part as React.ElementType;
  function Slotted({ className, ...props }: React.ComponentProps<P> & { className?: string }) {
    return (
      <Element
        data-slot={slot}
        className={baseClassName === undefined ? className : cn(baseClassName, className)}
        {...props}
      />
    );
  }
  Slotted.displayName = slot;
  return Slotted;
}

/** The dimmed backdrop behind a dialog, alert dialog or sheet. */
export const overlayClassName =
  "fixed inset-0 z-50 bg-black/50 data-[state=closed]:animate-out data-[state=closed]:fade-out-0 data-[state=open]:animate-in data-[state=open]:fade-in-0";

/**
 * The centred panel of a dialog or alert dialog: the same place, frame and zoom either way; a
 * dialog adds its own scrolling for content taller than the window.
 */
export const modalContentClassName =
  "fixed top-[50%] left-[50%] z-50 grid w-full max-w-[calc(100%-2rem)] translate-x-[-50%] translate-y-[-50%] gap-4 rounded-lg border bg-background p-6 shadow-lg duration-200 outline-none data-[state=closed]:animate-out data-[state=closed]:fade-out-0 data-[state=closed]:zoom-out-95 data-[state=open]:animate-in data-[state=open]:fade-in-0 data-[state=open]:zoom-in-95 sm:max-w-lg";
