import type { ComponentProps, KeyboardEvent, ReactNode } from "react";
import { Table, TableBody, TableHeader, TableRow } from "@/components/ui/table";
import { cn } from "@/lib/utils";

/** A list page's table: a bordered card, one muted header row of `head`, the rows as `children`. */
export function ListTable({
  head,
  label,
  children,
}: {
  head: ReactNode;
  label?: string;
  children: ReactNode;
}) {
  return (
    <div className="overflow-hidden rounded-lg border bg-card">
      <Table aria-label={label}>
        <TableHeader className="bg-muted/40">
          <TableRow className="hover:bg-transparent">{head}</TableRow>
        </TableHeader>
        <TableBody>{children}</TableBody>
      </Table>
    </div>
  );
}

/**
 * A row that opens what it shows: by click, and from the keyboard by Enter or Space on the row
 * itself (not on a button inside it, which does its own thing).
 */
export function OpenableRow({
  onOpen,
  className,
  ...props
}: Omit<ComponentProps<typeof TableRow>, "onClick" | "onKeyDown"> & {
  onOpen: () => void;
}) {
  return (
    <TableRow
      {...props}
      tabIndex={0}
      className={cn(
        "cursor-pointer focus-visible:bg-muted/50 focus-visible:outline-none",
        className,
      )}
      onClick={onOpen}
      onKeyDown={(e: KeyboardEvent) => {
        if (
          e.target === e.currentTarget &&
          (e.key === "Enter" || e.key === " ")
        ) {
          e.preventDefault();
          onOpen();
        }
      }}
    />
  );
}
