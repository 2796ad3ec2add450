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
