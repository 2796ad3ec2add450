import { AlertCircle, Loader2 } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { DialogFooter } from "@/components/ui/dialog";

/** A form's failure in words (the server's, or the spec's), above the fields. */
export function ErrorBanner({ message, testId }: { message: string | null | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <p role="alert" data-testid={testId} className="flex items-start gap-2 rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive">
      <AlertCircle className="mt-0.5 size-4 shrink-0" />
      {message}
    </p>
  );
}

/** A line of failure beneath a form or a list, in the words given; nothing when there is none. */
export function ErrorLine({ message }: { message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p role="alert" className="text-sm text-destructive">
      {message}
    </p>
  );
}

/** A dialog's Cancel / submit pair; the submit names the form by id and spins while busy. */
export function DialogFormFooter({ formId, busy, disabled, onCancel, children }: { formId: string; busy: boolean; disabled?: boolean; onCancel: () => void; children: ReactNode }) {
  return (
    <DialogFooter>
      <Button variant="outline" type="button" disabled={busy} onClick={onCancel}>
        Cancel
      </Button>
      <Button type="submit" form={formId} disabled={busy || disabled}>
        {busy && <Loader2 className="animate-spin" />}
        {children}
      </Button>
    </DialogFooter>
  );
}

/** Each field's first message from a failed schema check, keyed by the field's name. */
export function firstIssues<K extends string>(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Partial<Record<K, string>> {
  const found: Partial<Record<K, string>> = {};
  for (const issue of issues) found[String(issue.path[0]) as K] ??= issue.message;
  return found;
}

/**
 * A dialog's sending state: `run` clears the banner, marks it busy while the call runs, and puts
 * a rejection's message in the banner (the dialog stays open).
 */
export function useBannerSubmit() {
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (send: () => Promise<void>) => {
    setBanner(null);
    setBusy(true);
    try {
      await send();
    } catch (err) {
      setBanner(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return { banner, setBanner, busy, run };
}
