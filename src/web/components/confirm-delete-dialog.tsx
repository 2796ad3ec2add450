import { useState } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { Button } from "@/components/ui/button";
import { toast, toastFailure } from "@/components/ui/sonner";

interface ConfirmDeleteDialogProps<T extends { name: string }> {
  /** The thing to delete; the dialog is open while it is set. */
  item: T | null;
  title: string;
  /** What deleting does, after the item's name: "will be deleted permanently. …" */
  consequence: string;
  onOpenChange: (open: boolean) => void;
  /** Resolves when deleted; the dialog stays open (and re-enabled) if it rejects. */
  onConfirm: (item: T) => Promise<unknown>;
  /** What to toast when it is deleted, and the title of the toast when it could not be (the error's words beneath). */
  toasts?: { deleted: string; failed: string };
}

export function ConfirmDeleteDialog<T extends { name: string }>({ item, title, consequence, onOpenChange, onConfirm, toasts }: ConfirmDeleteDialogProps<T>) {
  const [busy, setBusy] = useState(false);
  // Keeps the name on screen while the dialog animates closed.
  const [shown, setShown] = useState(item);
  if (item && item !== shown) setShown(item);

  const confirm = async () => {
    if (!item) return;
    setBusy(true);
    try {
      await onConfirm(item);
      if (toasts) toast.success(toasts.deleted);
      onOpenChange(false);
    } catch (err) {
      // Keep the dialog so the user can retry or cancel; without `toasts` the caller has shown the failure.
      if (toasts) toastFailure(toasts.failed, err);
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
