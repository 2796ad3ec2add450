import { useState, type FormEvent, type ReactNode } from "react";
import type { QueryKey } from "@tanstack/react-query";
import type { ZodType } from "zod";
import { Button } from "@/components/ui/button";
import { CardContent, CardFooter } from "@/components/ui/card";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useSettingsDocument } from "@/lib/use-settings-document";
import { SETTINGS_TEXTS } from "@shared/settings";

interface SettingFormOptions<T extends Record<string, unknown>, V> {
  queryKey: QueryKey;
  path: string;
  /** The document as the form shows it (a field's text, or the state of several fields). */
  toValue: (doc: T) => V;
  /** What the form says, as the body to check and PUT. */
  toBody: (value: V) => unknown;
  schema: ZodType<T>;
  texts: { saved: string; saveFailed: string };
  /** Show what the server kept after a save (it may tidy what was typed). */
  showSaved?: boolean;
}

/**
 * One settings document edited in a form: `value` is null until it has loaded; a submit checks
 * the body with the shared schema (its message under the field), saves it and says so.
 */
export function useSettingForm<T extends Record<string, unknown>, V = string>({ queryKey, path, toValue, toBody, schema, texts, showSaved }: SettingFormOptions<T, V>) {
  const { current, save } = useSettingsDocument<T>(queryKey, path);
  const [value, setValue] = useState<V | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (value === null && current.data) setValue(toValue(current.data));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (value === null) return;
    const parsed = schema.safeParse(toBody(value));
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? texts.saveFailed);
      return;
    }
    setError(null);
    try {
      const saved = await save.mutateAsync(parsed.data);
      if (showSaved) setValue(toValue(saved));
      toast.success(texts.saved);
    } catch (err) {
      toastFailure(texts.saveFailed, err);
    }
  };
  // Until the current value is read the field stays disabled: a failed read says so, with a way to try again.
  const loadFailed = value === null && current.isError ? { message: current.error.message, retry: () => void current.refetch() } : null;
  return { value, setValue, error: error ?? undefined, submit, saving: save.isPending, loadFailed };
}

/** The form of a `useSettingForm`: the field(s) as children, and its save button. */
export function SettingForm({
  form,
  saveLabel,
  className,
  children,
}: {
  form: Pick<ReturnType<typeof useSettingForm<Record<string, unknown>, unknown>>, "value" | "submit" | "saving" | "loadFailed">;
  saveLabel: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <form onSubmit={(e) => void form.submit(e)} noValidate className={className}>
      <CardContent>
        {children}
        {form.loadFailed && (
          <p role="alert" className="mt-2 flex flex-wrap items-center gap-2 text-sm text-destructive">
            {SETTINGS_TEXTS.loadFailed} {form.loadFailed.message}
            <Button type="button" variant="outline" size="sm" onClick={form.loadFailed.retry}>
              {SETTINGS_TEXTS.tryAgain}
            </Button>
          </p>
        )}
      </CardContent>
      <CardFooter className="mt-6 flex justify-end">
        <Button type="submit" disabled={form.value === null || form.saving}>
          {form.saving ? "Saving..." : saveLabel}
        </Button>
      </CardFooter>
    </form>
  );
}
