import type { ReactNode } from "react";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";

/** What a list page's side panel shows. `open: false` is closed; the view is kept so closing can animate. */
export type PanelState = { open: boolean; view: "create" } | { open: boolean; view: "details" | "edit"; id: string };

/** A side panel's title (long names wrap clear of the close button) and its description. */
export function PanelHeader({ title, description }: { title: ReactNode; description: ReactNode }) {
  return (
    <SheetHeader className="px-6 pt-6 pb-2">
      <SheetTitle className="pr-8 text-xl break-words">{title}</SheetTitle>
      <SheetDescription>{description}</SheetDescription>
    </SheetHeader>
  );
}

/**
 * A list page's create/details/edit side panel. Closing goes through `onClose`, which may ask
 * about unsaved changes first, so the sheet only reports that the user wants it shut.
 */
export function PanelSheet({
  open,
  onClose,
  className,
  title,
  description,
  children,
}: {
  open: boolean;
  onClose: () => void;
  className: string;
  title: ReactNode;
  description: ReactNode;
  children: ReactNode;
}) {
  return (
    <Sheet open={open} onOpenChange={(next) => !next && onClose()}>
      <SheetContent className={className}>
        <PanelHeader title={title} description={description} />
        {children}
      </SheetContent>
    </Sheet>
  );
}

/**
 * One labelled value of a details panel (a dt/dd pair in its <dl>); an empty value shows
 * `fallback` in italics. Text keeps its line breaks.
 */
export function DetailField({ label, fallback, children }: { label: string; fallback?: string; children: ReactNode }) {
  const empty = children === null || children === undefined || children === "" || children === false;
  return (
    <div className="grid min-w-0 gap-1.5" data-field={label}>
      <dt className="text-sm font-medium text-muted-foreground">{label}</dt>
      <dd className="min-w-0 text-sm break-words whitespace-pre-wrap">{empty ? <span className="text-muted-foreground italic">{fallback}</span> : children}</dd>
    </div>
  );
}
