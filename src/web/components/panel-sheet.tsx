import type { ReactNode } from "react";
import { Separator } from "@/components/ui/separator";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useCan } from "@/lib/use-membership";

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

/** A side panel's tabs, inset to the panel's margin: `tabs` maps each tab's value to its label. */
export function PanelTabsList({ tabs }: { tabs: Record<string, string> }) {
  return (
    <TabsList className="mx-6">
      {Object.entries(tabs).map(([value, label]) => (
        <TabsTrigger key={value} value={value} className="px-4">
          {label}
        </TabsTrigger>
      ))}
    </TabsList>
  );
}

/**
 * A details panel: what stands above, the row of actions (only for those who may build), a
 * rule, then the fields as one <dl>; `after` follows the list.
 */
export function DetailsBody({ top, actions, after, children }: { top?: ReactNode; actions: ReactNode; after?: ReactNode; children: ReactNode }) {
  const build = useCan("build");
  return (
    <div className="grid gap-6 px-6 pb-8">
      {top}
      {build && <div className="flex flex-wrap gap-2">{actions}</div>}

      <Separator />

      <dl className="grid gap-6">{children}</dl>
      {after}
    </div>
  );
}
