import { AlertCircle, Plus, type LucideIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";

/** The heading row of a list page: title, one line of explanation, and its "Create new" button. */
/** A list page's title; "Create new" only when `onCreate` is given (a role that cannot create sees none). */
export function ListPageHeader({ title, description, onCreate }: { title: string; description: string; onCreate?: () => void }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-4">
      <div className="grid gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        <p className="text-sm text-muted-foreground">{description}</p>
      </div>
      {onCreate && (
        <Button onClick={onCreate}>
          <Plus />
          Create new
        </Button>
      )}
    </div>
  );
}

export function LoadError({ what, message, onRetry }: { what: string; message: string; onRetry: () => void }) {
  return (
    <div role="alert" className="flex flex-col items-center gap-3 rounded-lg border border-dashed px-6 py-14 text-center">
      <AlertCircle className="size-8 text-destructive" />
      <div className="grid gap-1">
        <p className="font-medium">Couldn&apos;t load your {what}</p>
        <p className="text-sm text-muted-foreground">{message}</p>
      </div>
      <Button variant="outline" onClick={onRetry}>
        Try again
      </Button>
    </div>
  );
}

export function EmptyState({ icon: Icon, title, children, action }: { icon: LucideIcon; title: string; children: ReactNode; action: ReactNode }) {
  return (
    <div className="flex flex-col items-center gap-4 rounded-lg border border-dashed px-6 py-16 text-center">
      <div className="flex size-12 items-center justify-center rounded-full bg-primary/10 text-primary">
        <Icon className="size-6" />
      </div>
      <div className="grid max-w-sm gap-1">
        <p className="font-medium">{title}</p>
        <p className="text-sm text-muted-foreground">{children}</p>
      </div>
      {action}
    </div>
  );
}

/** Placeholder rows while a table loads; `cells` are one row's skeletons, or the class names of one Skeleton each. */
export function TableSkeleton({ label, headerWidths, cells }: { label: string; headerWidths: number[]; cells: ReactNode | readonly string[] }) {
  const placeholders = isClassList(cells) ? cells.map((className, i) => <Skeleton key={i} className={className} />) : cells;
  return (
    <div className="overflow-hidden rounded-lg border" aria-busy="true" aria-label={label}>
      <div className="flex h-10 items-center gap-6 border-b bg-muted/40 px-4">
        {headerWidths.map((w, i) => (
          <Skeleton key={i} className="h-3" style={{ width: `${w * 0.25}rem` }} />
        ))}
      </div>
      {[0, 1, 2, 3].map((row) => (
        <div key={row} className="flex h-14 items-center gap-6 border-b px-4 last:border-0">
          {placeholders}
        </div>
      ))}
    </div>
  );
}

const isClassList = (cells: ReactNode | readonly string[]): cells is readonly string[] => Array.isArray(cells) && cells.every((c) => typeof c === "string");

/** An empty list's call to action: "Create your first assistant". */
export function CreateFirstButton({ onClick, children }: { onClick: () => void; children: ReactNode }) {
  return (
    <Button variant="outline" onClick={onClick}>
      <Plus />
      {children}
    </Button>
  );
}
