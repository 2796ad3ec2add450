import { ArrowDown, ArrowUp, ArrowUpDown, Search } from "lucide-react";
import { useMemo, useState, type ReactNode } from "react";
import { Input } from "@/components/ui/input";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { cn } from "@/lib/utils";

export type SortDirection = "asc" | "desc";
export interface SortState<K extends string> {
  column: K;
  direction: SortDirection;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
/** Compares names and labels the way people read them (case-insensitive, "Tool 2" before "Tool 10"). */
export const byText = <T,>(text: (row: T) => string) => (a: T, b: T) => collator.compare(text(a), text(b));
export const byNumber = <T,>(value: (row: T) => number) => (a: T, b: T) => value(a) - value(b);

/**
 * A list page's search by name and column sort, on the client: lists are one user's own rows,
 * already loaded whole. With no sort chosen, rows keep the server's order (newest first).
 */
export function useTableView<T, K extends string>(rows: T[], name: (row: T) => string, comparators: Record<K, (a: T, b: T) => number>) {
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<SortState<K> | null>(null);
  const visible = useMemo(() => {
    const needle = query.trim().toLocaleLowerCase();
    const found = needle ? rows.filter((row) => name(row).toLocaleLowerCase().includes(needle)) : rows;
    if (!sort) return found;
    const compare = comparators[sort.column];
    const sign = sort.direction === "asc" ? 1 : -1;
    return [...found].sort((a, b) => sign * compare(a, b));
    // comparators and name are module constants at the call sites.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rows, query, sort]);
  /** First click sorts ascending, the second descending, the third goes back to the server's order. */
  const toggleSort = (column: K) =>
    setSort((s) => (s?.column !== column ? { column, direction: "asc" } : s.direction === "asc" ? { column, direction: "desc" } : null));
  return { query, setQuery, sort, toggleSort, rows: visible };
}

export function TableSearch({ value, onChange, label }: { value: string; onChange: (value: string) => void; label: string }) {
  return (
    <div className="relative w-full sm:max-w-xs">
      <Search className="pointer-events-none absolute top-1/2 left-3 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
      <Input type="search" aria-label={label} placeholder="Search by name..." value={value} onChange={(e) => onChange(e.target.value)} className="pl-9" />
    </div>
  );
}

/** A column header that sorts by its column; `aria-sort` tells screen readers the current order. */
export function SortableHead<K extends string>({
  label,
  column,
  sort,
  onSort,
  className,
}: {
  label: string;
  column: K;
  sort: SortState<K> | null;
  onSort: (column: K) => void;
  className?: string;
}) {
  const direction = sort?.column === column ? sort.direction : null;
  const Icon = direction === "asc" ? ArrowUp : direction === "desc" ? ArrowDown : ArrowUpDown;
  return (
    <TableHead className={className} aria-sort={direction === "asc" ? "ascending" : direction === "desc" ? "descending" : "none"}>
      <button
        type="button"
        onClick={() => onSort(column)}
        className={cn("-mx-2 inline-flex items-center gap-1 rounded px-2 py-1 hover:bg-muted focus-visible:ring-[3px] focus-visible:ring-ring/50 focus-visible:outline-none", direction && "text-foreground")}
      >
        {label}
        <Icon className={cn("size-3.5", !direction && "opacity-50")} aria-hidden="true" />
        <span className="sr-only">{direction === "asc" ? ", sorted ascending" : direction === "desc" ? ", sorted descending" : ", not sorted"}</span>
      </button>
    </TableHead>
  );
}

/** The one row of a filtered table that matched nothing: "No tools match “x”." */
export function NoMatchRow({ what, query, columns }: { what: string; query: string; columns: number }) {
  return (
    <TableRow className="hover:bg-transparent">
      <TableCell colSpan={columns} className="py-8 text-center text-muted-foreground">
        No {what} match &ldquo;{query.trim()}&rdquo;.
      </TableCell>
    </TableRow>
  );
}

/** The header of a row-actions column: named for screen readers, blank on screen. */
export function ActionsHead({ className }: { className?: string }) {
  return (
    <TableHead className={className}>
      <span className="sr-only">Actions</span>
    </TableHead>
  );
}

/**
 * A table's header row of plain column names; `actions` adds the last, visually hidden
 * "Actions" column (`"empty"`: a blank one).
 */
export function TableHeads({ labels, actions }: { labels: readonly string[]; actions?: boolean | "empty" }) {
  return (
    <TableHeader>
      <TableRow>
        {labels.map((label) => (
          <TableHead key={label}>{label}</TableHead>
        ))}
        {actions === "empty" ? <TableHead /> : actions && <ActionsHead />}
      </TableRow>
    </TableHeader>
  );
}

/**
 * A short list of records, each with one action in its last column (Revoke, Delete): the heads,
 * then a row a record with the cells `cells` gives it. `actions` as TableHeads'.
 */
export function ActionTable<T extends { id: string }>({ label, heads, actions, rows, rowTestId, cells, action }: {
  label: string;
  heads: readonly string[];
  actions: true | "empty";
  rows: readonly T[];
  rowTestId?: string;
  cells: (row: T) => ReactNode;
  action: (row: T) => ReactNode;
}) {
  return (
    <Table aria-label={label}>
      <TableHeads labels={heads} actions={actions} />
      <TableBody>
        {rows.map((row) => (
          <TableRow key={row.id} data-testid={rowTestId}>
            {cells(row)}
            <TableCell className={actions === true ? "text-right" : undefined}>{action(row)}</TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
