import { Button } from "@/components/ui/button";

/** The Cancel / submit bar pinned to the bottom of a form in a side sheet (assistants, tools). */
export function SheetFormFooter({ onCancel, submitting, submitLabel }: { onCancel: () => void; submitting: boolean; submitLabel: string }) {
  return (
    <div className="sticky bottom-0 mt-auto flex justify-end gap-2 border-t bg-background px-6 py-4">
      <Button type="button" variant="outline" onClick={onCancel} disabled={submitting}>
        Cancel
      </Button>
      <Button type="submit" disabled={submitting}>
        {submitLabel}
      </Button>
    </div>
  );
}
