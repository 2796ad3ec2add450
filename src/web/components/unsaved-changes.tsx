import { useCallback, useRef, useState } from "react";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { AlertDialogAction } from "@/components/ui/alert-dialog";

/**
 * Guards leaving a form with unsaved changes (closing a Create/Edit panel, Cancel): the form
 * reports its dirtiness through `setDirty`, and `guard(leave)` runs `leave` at once when nothing
 * would be lost, otherwise only after the user confirms in `dialog`.
 */
export function useUnsavedChangesGuard() {
  const dirty = useRef(false);
  const [pending, setPending] = useState<(() => void) | null>(null);
  const setDirty = useCallback((value: boolean) => void (dirty.current = value), []);
  const guard = useCallback((leave: () => void) => {
    if (dirty.current) setPending(() => leave);
    else leave();
  }, []);

  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      onOpenChange={(open) => !open && setPending(null)}
      title="Discard unsaved changes?"
      description="You have changes that are not saved. If you leave now, they are lost."
      cancelLabel="Keep Editing"
      action={
        <AlertDialogAction
          className="bg-destructive text-white hover:bg-destructive/90"
          onClick={() => {
            const leave = pending;
            dirty.current = false;
            setPending(null);
            leave?.();
          }}
        >
          Discard Changes
        </AlertDialogAction>
      }
    />
  );

  return { setDirty, guard, dialog };
}
