import * as React from "react";
import { Dialog as SheetPrimitive } from "radix-ui";
import { XIcon } from "lucide-react";

import { cn } from "@/lib/utils";
import { overlayClassName, slotted } from "@/components/ui/slotted";

const Sheet = slotted(SheetPrimitive.Root, "sheet");
const SheetTrigger = slotted(SheetPrimitive.Trigger, "sheet-trigger");
const SheetClose = slotted(SheetPrimitive.Close, "sheet-close");
const SheetPortal = slotted(SheetPrimitive.Portal, "sheet-portal");
const SheetOverlay = slotted(SheetPrimitive.Overlay, "sheet-overlay", overlayClassName);

type SheetContentProps = React.ComponentProps<typeof SheetPrimitive.Content> & {
  side?: "left" | "right" | "bottom";
  showCloseButton?: boolean;
};

/**
 * A side panel, or with `side="bottom"` a drawer. A side panel's default width is one `w-*`
 * class, so a caller's `w-*` replaces it outright: `className="w-[600px] max-w-[60%]"` or
 * `className="w-[60%] lg:w-[45%]"`.
 */
function SheetContent({
  className,
  children,
  side = "right",
  showCloseButton = true,
  ...props
}: SheetContentProps) {
  return (
    <SheetPortal>
      <SheetOverlay />
      <SheetPrimitive.Content
        data-slot="sheet-content"
        data-side={side}
        className={cn(
          "fixed z-50 flex flex-col gap-4 overflow-y-auto bg-background shadow-lg outline-none data-[state=closed]:animate-out data-[state=closed]:duration-300 data-[state=closed]:ease-in data-[state=open]:animate-in data-[state=open]:duration-300 data-[state=open]:ease-out",
          side !== "bottom" && "inset-y-0 h-full w-[min(75%,24rem)]",
          side === "right" &&
            "right-0 border-l data-[state=closed]:slide-out-to-right data-[state=open]:slide-in-from-right",
          side === "left" &&
            "left-0 border-r data-[state=closed]:slide-out-to-left data-[state=open]:slide-in-from-left",
          // A drawer: set its height with className (e.g. `h-[70vh]`).
          side === "bottom" &&
            "inset-x-0 bottom-0 max-h-[85vh] rounded-t-xl border-t data-[state=closed]:[--tw-exit-translate-y:100%] data-[state=open]:[--tw-enter-translate-y:100%]",
          className,
        )}
        {...props}
      >
        {children}
        {showCloseButton && (
          <SheetPrimitive.Close
            data-slot="sheet-close"
            className="absolute top-4 right-4 rounded-xs opacity-70 transition-opacity hover:opacity-100 focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2 focus-visible:outline-hidden disabled:pointer-events-none"
          >
            <XIcon className="size-4" />
            <span className="sr-only">Close</span>
          </SheetPrimitive.Close>
        )}
      </SheetPrimitive.Content>
    </SheetPortal>
  );
}

const SheetHeader = slotted("div", "sheet-header", "flex flex-col gap-1.5 p-4");
const SheetFooter = slotted("div", "sheet-footer", "mt-auto flex flex-col gap-2 p-4");
const SheetTitle = slotted(SheetPrimitive.Title, "sheet-title", "font-semibold text-foreground");
const SheetDescription = slotted(
  SheetPrimitive.Description,
  "sheet-description",
  "text-sm text-muted-foreground",
);

export {
  Sheet,
  SheetTrigger,
  SheetClose,
  SheetContent,
  SheetHeader,
  SheetFooter,
  SheetTitle,
  SheetDescription,
};
