import type { Tool } from "@shared/tools";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";

export function DeleteToolDialog({ tool, ...props }: { tool: Tool | null; onOpenChange: (open: boolean) => void; onConfirm: (tool: Tool) => Promise<void> }) {
  return (
    <ConfirmDeleteDialog
      item={tool}
      title="Delete this tool?"
      consequence="will be deleted permanently and removed from every assistant that uses it. This cannot be undone."
      {...props}
    />
  );
}
