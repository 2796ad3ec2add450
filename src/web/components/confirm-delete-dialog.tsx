import { useState } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Button } from "@/components/ui/button";

interface ConfirmDeleteDialogProps<T extends { name: string }> {
  /** The thing to delete; the dialog is open while it is set. */
  item: T | null;
  title: string;
  /** What deleting does, after the item's name: "will be deleted permanently. …" */
  consequence: string;
  onOpenChange: (open: boolean) => void;
  /** Resolves when deleted; the dialog stays open (and re-enabled) if it rejects. */
  onConfirm: (item: T) => Promise<void>;
}

export function ConfirmDeleteDialog<T extends { name: string }>({ item, title, consequence, onOpenChange, onConfirm }: ConfirmDeleteDialogProps<T>) {
  const [busy, setBusy] = useState(false);
  // Keeps the name on screen while the dialog animates closed.
  const [shown, setShown] = useState(item);
  if (item && item !== shown) setShown(item);

  const confirm = async () => {
    if (!item) return;
    setBusy(true);
    try {
      await onConfirm(item);
      onOpenChange(false);
    } catch {
      // The caller has shown the failure; keep the dialog so the user can retry or cancel.
    } finally {
      setBusy(false);
    }
  };

  return (
    <ConfirmDialog
      open={item !== null}
      onOpenChange={(open) => !busy && onOpenChange(open)}
      title={title}
      description={
        <>
          <strong className="font-medium text-foreground">{shown?.name}</strong> {consequence}
        </>
      }
      cancelDisabled={busy}
      action={
        <Button variant="destructive" onClick={() => void confirm()} disabled={busy}>
          {busy ? "Deleting..." : "Delete"}
        </Button>
      }
    />
  );
}
