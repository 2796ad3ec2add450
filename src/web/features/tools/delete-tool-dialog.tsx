import { useState } from "react";
import type { Tool } from "@shared/tools";
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

interface DeleteToolDialogProps {
  tool: Tool | null;
  onOpenChange: (open: boolean) => void;
  /** Resolves when deleted; the dialog stays open (and re-enabled) if it rejects. */
  onConfirm: (tool: Tool) => Promise<void>;
}

export function DeleteToolDialog({ tool, onOpenChange, onConfirm }: DeleteToolDialogProps) {
  const [busy, setBusy] = useState(false);
  // Keeps the name on screen while the dialog animates closed.
  const [shown, setShown] = useState(tool);
  if (tool && tool !== shown) setShown(tool);

  const confirm = async () => {
    if (!tool) return;
    setBusy(true);
    try {
      await onConfirm(tool);
      onOpenChange(false);
    } catch {
      // The caller has shown the failure; keep the dialog so the user can retry or cancel.
    } finally {
      setBusy(false);
    }
  };

  return (
    <AlertDialog open={tool !== null} onOpenChange={(open) => !busy && onOpenChange(open)}>
      <AlertDialogContent>
        <AlertDialogHeader>
          <AlertDialogTitle>Delete this tool?</AlertDialogTitle>
          <AlertDialogDescription>
            <strong className="font-medium text-foreground">{shown?.name}</strong> will be deleted permanently and removed from every
            assistant that uses it. This cannot be undone.
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
