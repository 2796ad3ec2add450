import { Pencil, PhoneCall, Trash2 } from "lucide-react";
import type { Assistant } from "@shared/assistants";
import { RowAction } from "@/components/row-action";
import { byNumber, byText, NoMatchRow, SortableHead, TableSearch, useTableView } from "@/components/table-view";
import { ListTable, OpenableRow } from "@/components/list-table";
import { TableCell, TableHead } from "@/components/ui/table";
import { useCan } from "@/lib/use-membership";
import { shortDate } from "./assistant-dates";
import { DraftBadge } from "./draft-badge";

interface AssistantsTableProps {
  assistants: Assistant[];
  onOpen: (assistant: Assistant) => void;
  onEdit: (assistant: Assistant) => void;
  onTestCall: (assistant: Assistant) => void;
  onDelete: (assistant: Assistant) => void;
}

const SORTS = {
  name: byText((a: Assistant) => a.name),
  tools: byNumber((a: Assistant) => a.tools.length),
  created: byText((a: Assistant) => a.created_at ?? ""),
};
const nameOf = (a: Assistant) => a.name;

export function AssistantsTable({ assistants: all, onOpen, onEdit, onTestCall, onDelete }: AssistantsTableProps) {
  const { query, setQuery, sort, toggleSort, rows: assistants } = useTableView(all, nameOf, SORTS);
  // Viewers and supervisors read only: the row opens its details, nothing more.
  const build = useCan("build");
  return (
    <div className="grid gap-3">
    <TableSearch label="Search assistants by name" value={query} onChange={setQuery} />
    <ListTable
      head={
        <>
          <SortableHead className="pl-4" label="Name" column="name" sort={sort} onSort={toggleSort} />
          <TableHead className="hidden md:table-cell">Description</TableHead>
          <SortableHead className="text-center" label="Tools" column="tools" sort={sort} onSort={toggleSort} />
          <SortableHead className="hidden sm:table-cell" label="Created" column="created" sort={sort} onSort={toggleSort} />
          <TableHead className="pr-4 text-right">Actions</TableHead>
        </>
      }
    >
      {assistants.map((assistant) => (
        <OpenableRow key={assistant.id} data-testid="assistant-row" aria-label={`${assistant.name}: open details`} onOpen={() => onOpen(assistant)}>
          <TableCell className="max-w-[9rem] py-3 pl-4 sm:max-w-[16rem]">
            <span className="block truncate font-medium">{assistant.name}</span>
            <DraftBadge assistantId={assistant.id} className="mt-1 max-w-full truncate" />
          </TableCell>
          <TableCell className="hidden max-w-[28rem] truncate text-muted-foreground md:table-cell">
            {assistant.description || <span className="italic">No description</span>}
          </TableCell>
          <TableCell className="text-center tabular-nums">{assistant.tools.length}</TableCell>
          <TableCell className="hidden text-muted-foreground sm:table-cell">{shortDate(assistant.created_at)}</TableCell>
          <TableCell className="pr-4">
            <div className="flex justify-end sm:gap-1">
              {build && (
                <>
                  <RowAction label="Edit assistant" onClick={() => onEdit(assistant)}>
                    <Pencil />
                  </RowAction>
                  <RowAction label="Test call" onClick={() => onTestCall(assistant)}>
                    <PhoneCall />
                  </RowAction>
                  <RowAction label="Delete assistant" destructive onClick={() => onDelete(assistant)}>
                    <Trash2 />
                  </RowAction>
                </>
              )}
            </div>
          </TableCell>
        </OpenableRow>
      ))}
      {assistants.length === 0 && <NoMatchRow what="assistants" query={query} columns={5} />}
    </ListTable>
    </div>
  );
}
