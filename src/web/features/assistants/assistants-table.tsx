import { Pencil, PhoneCall, Trash2 } from "lucide-react";
import type { KeyboardEvent } from "react";
import type { Assistant } from "@shared/assistants";
import { RowAction } from "@/components/row-action";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { shortDate } from "./assistant-dates";

interface AssistantsTableProps {
  assistants: Assistant[];
  onOpen: (assistant: Assistant) => void;
  onEdit: (assistant: Assistant) => void;
  onTestCall: (assistant: Assistant) => void;
  onDelete: (assistant: Assistant) => void;
}

export function AssistantsTable({ assistants, onOpen, onEdit, onTestCall, onDelete }: AssistantsTableProps) {
  return (
    <div className="overflow-hidden rounded-lg border bg-card">
      <Table>
        <TableHeader className="bg-muted/40">
          <TableRow className="hover:bg-transparent">
            <TableHead className="pl-4">Name</TableHead>
            <TableHead className="hidden md:table-cell">Description</TableHead>
            <TableHead className="text-center">Tools</TableHead>
            <TableHead className="hidden sm:table-cell">Created</TableHead>
            <TableHead className="pr-4 text-right">Actions</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {assistants.map((assistant) => (
            <TableRow
              key={assistant.id}
              data-testid="assistant-row"
              tabIndex={0}
              aria-label={`${assistant.name}: open details`}
              className="cursor-pointer focus-visible:bg-muted/50 focus-visible:outline-none"
              onClick={() => onOpen(assistant)}
              onKeyDown={(e: KeyboardEvent) => {
                if (e.target === e.currentTarget && (e.key === "Enter" || e.key === " ")) {
                  e.preventDefault();
                  onOpen(assistant);
                }
              }}
            >
              <TableCell className="max-w-[9rem] truncate py-3 pl-4 font-medium sm:max-w-[16rem]">{assistant.name}</TableCell>
              <TableCell className="hidden max-w-[28rem] truncate text-muted-foreground md:table-cell">
                {assistant.description || <span className="italic">No description</span>}
              </TableCell>
              <TableCell className="text-center tabular-nums">{assistant.tools.length}</TableCell>
              <TableCell className="hidden text-muted-foreground sm:table-cell">{shortDate(assistant.created_at)}</TableCell>
              <TableCell className="pr-4">
                <div className="flex justify-end sm:gap-1">
                  <RowAction label="Edit assistant" onClick={() => onEdit(assistant)}>
                    <Pencil />
                  </RowAction>
                  <RowAction label="Test call" onClick={() => onTestCall(assistant)}>
                    <PhoneCall />
                  </RowAction>
                  <RowAction label="Delete assistant" destructive onClick={() => onDelete(assistant)}>
                    <Trash2 />
                  </RowAction>
                </div>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
