import type { Assistant } from "@shared/assistants";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";

export function DeleteAssistantDialog({
  assistant,
  ...props
}: {
  assistant: Assistant | null;
  onOpenChange: (open: boolean) => void;
  onConfirm: (assistant: Assistant) => Promise<void>;
}) {
  return (
    <ConfirmDeleteDialog
      item={assistant}
      title="Delete this assistant?"
      consequence="will be deleted permanently. Phone numbers linked to it become unassigned, and its past calls keep their records. This cannot be undone."
      {...props}
    />
  );
}
