import { Plus, Trash2 } from "lucide-react";
import { Button } from "@/components/ui/button";

/** The Remove button of one row of a repeated group of fields (analysis fields, transfer destinations). */
export function RemoveRowButton({ label, onClick }: { label: string; onClick: () => void }) {
  return (
    <Button type="button" variant="outline" size="sm" onClick={onClick}>
      <Trash2 />
      {label}
    </Button>
  );
}

/** Under a repeated group: the list's own error, and Add, off once the list holds `max`. */
export function AddRowFooter({ error, count, max, label, onAdd }: { error?: string; count: number; max: number; label: string; onAdd: () => void }) {
  return (
    <>
      {error && <p className="text-sm text-destructive">{error}</p>}
      <div>
        <Button type="button" variant="outline" size="sm" disabled={count >= max} onClick={onAdd}>
          <Plus />
          {label}
        </Button>
      </div>
    </>
  );
}
