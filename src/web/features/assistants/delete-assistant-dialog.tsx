import { useState } from "react";
import type { Assistant } from "@shared/assistants";
import {
  AlertDialog,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";

interface DeleteAssistantDialogProps {
  assistant: Assistant | null;
  onOpenChange: (open: boolean) => void;
  /** Resolves when deleted; the dialog stays open (and re-enabled) if it rejects. */
  onConfirm: (assistant: Assistant) => Promise<void>;
}

export function DeleteAssistantDialog({ assistant, onOpenChange, onConfirm }: DeleteAssistantDialogProps) {
  const [busy, setBusy] = useState(false);
  // Keeps the name on screen while the dialog animates closed.
  const [shown, setShown] = useState(assistant);
  if (assistant && assistant !== shown) setShown(assistant);

  const confirm = async () => {
    if (!assistant) return;
    setBusy(true);
    try {
      await onConfirm(assistant);
      onOpenChange(false);
    } catch {
      // The caller has shown the failure; keep the dialog so the user can retry or cancel.
    } finally {
      setBusy(false);
    }
  };

  return (
    <AlertDialog open={assistant !== null} onOpenChange={(open) => !busy && onOpenChange(open)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete this assistant?</AlertDialogTitle>
          <AlertDialogDescription>
            <strong className="font-medium text-foreground">{shown?.name}</strong> will be deleted permanently. Phone numbers linked
            to it become unassigned, and its past calls keep their records. This cannot be undone.
          </AlertDialogDescription>
        </AlertDialogHeader>
        <AlertDialogFooter>
          <AlertDialogCancel disabled={busy}>Cancel</AlertDialogCancel>
          <Button variant="destructive" onClick={() => void confirm()} disabled={busy}>
            {busy ? "Deleting..." : "Delete"}
          </Button>
        </AlertDialogFooter>
      </AlertDialogContent>
    </AlertDialog>
  );
}
