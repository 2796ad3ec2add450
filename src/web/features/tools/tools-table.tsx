import { FlaskConical, Pencil, Trash2 } from "lucide-react";
import type { Tool } from "@shared/tools";
import { RowAction } from "@/components/row-action";
import { byText, NoMatchRow, SortableHead, TableSearch, useTableView } from "@/components/table-view";
import { ListTable } from "@/components/list-table";
import { TableCell, TableHead, TableRow } from "@/components/ui/table";
import { useCan } from "@/lib/use-membership";
import { MethodBadge, TypeBadge } from "./tool-format";

interface ToolsTableProps {
  tools: Tool[];
  onOpen: (tool: Tool) => void;
  onTest: (tool: Tool) => void;
  onEdit: (tool: Tool) => void;
  onDelete: (tool: Tool) => void;
}

const SORTS = {
  name: byText((t: Tool) => t.name),
  type: byText((t: Tool) => t.type),
  method: byText((t: Tool) => t.http_method),
};
const nameOf = (t: Tool) => t.name;

export function ToolsTable({ tools: all, onOpen, onTest, onEdit, onDelete }: ToolsTableProps) {
  const { query, setQuery, sort, toggleSort, rows: tools } = useTableView(all, nameOf, SORTS);
  const build = useCan("build");
  return (
    <div className="grid gap-3">
    <TableSearch label="Search tools by name" value={query} onChange={setQuery} />
    <ListTable
      head={
        <>
          <SortableHead className="pl-4" label="Name" column="name" sort={sort} onSort={toggleSort} />
          <SortableHead className="hidden sm:table-cell" label="Type" column="type" sort={sort} onSort={toggleSort} />
          <SortableHead label="Method" column="method" sort={sort} onSort={toggleSort} />
          <TableHead className="hidden md:table-cell">Endpoint</TableHead>
          <TableHead className="pr-4 text-right">Actions</TableHead>
        </>
      }
    >
      {tools.map((tool) => (
        <TableRow key={tool.id} data-testid="tool-row">
          <TableCell className="py-3 pl-4">
            <button
              type="button"
              className="max-w-[14rem] truncate rounded-sm text-left font-medium underline-offset-4 outline-none hover:text-primary hover:underline focus-visible:ring-[3px] focus-visible:ring-ring/50 sm:max-w-[18rem]"
              title={tool.name}
              onClick={() => onOpen(tool)}
            >
              {tool.name}
            </button>
          </TableCell>
          <TableCell className="hidden sm:table-cell">
            <TypeBadge type={tool.type} />
          </TableCell>
          <TableCell>
            <MethodBadge method={tool.http_method} />
          </TableCell>
          <TableCell className="hidden md:table-cell">
            {/* Spec §9: endpoint text truncated at 200px; the whole URL is in the tooltip. */}
            <span className="block max-w-[200px] truncate font-mono text-[13px] text-muted-foreground" title={tool.end_point_url}>
              {tool.end_point_url}
            </span>
          </TableCell>
          <TableCell className="pr-4">
            {/* Testing runs the tool: builders only, like changing it. */}
            {build && (
              <div className="flex justify-end gap-1">
                <RowAction label={`Test ${tool.name}`} tip="Test tool" onClick={() => onTest(tool)}>
                  <FlaskConical />
                </RowAction>
                <RowAction label={`Edit ${tool.name}`} tip="Edit tool" onClick={() => onEdit(tool)}>
                  <Pencil />
                </RowAction>
                <RowAction label={`Delete ${tool.name}`} tip="Delete tool" destructive onClick={() => onDelete(tool)}>
                  <Trash2 />
                </RowAction>
              </div>
            )}
          </TableCell>
        </TableRow>
      ))}
      {tools.length === 0 && <NoMatchRow what="tools" query={query} columns={5} />}
    </ListTable>
    </div>
  );
}
