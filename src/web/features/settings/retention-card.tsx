import { useState } from "react";
import { RETENTION_MAX_DAYS, RETENTION_MESSAGES, retentionSettingsSchema, type RetentionSettings } from "@shared/retention";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useSettingsDocument } from "@/lib/use-settings-document";
import { queryKeys } from "@/lib/query-keys";

const queryKey = queryKeys.retention;
type Rule = { on: boolean; days: string };
const toRule = (days: number | null | undefined): Rule => ({ on: days != null, days: days != null ? String(days) : "30" });

/** Data retention: how long recordings and calls are kept (off by default; the server enforces it hourly). */
export function RetentionCard() {
  const { current, save } = useSettingsDocument<RetentionSettings>(queryKey, "/api/settings/retention");
  const [form, setForm] = useState<{ recordings: Rule; calls: Rule } | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The form starts from what the server holds, once read.
  if (form === null && current.data) setForm({ recordings: toRule(current.data.recordings_days), calls: toRule(current.data.calls_days) });
  const shown = form ?? { recordings: toRule(null), calls: toRule(null) };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const value = (rule: Rule) => (rule.on ? (rule.days.trim() === "" ? Number.NaN : Number(rule.days)) : null);
    const parsed = retentionSettingsSchema.safeParse({ recordings_days: value(shown.recordings), calls_days: value(shown.calls) });
    if (!parsed.success) {
      setError(RETENTION_MESSAGES.days);
      return;
    }
    setError(null);
    try {
      await save.mutateAsync(parsed.data);
      toast.success(RETENTION_MESSAGES.saved);
    } catch (err) {
      toastFailure("Failed to save retention settings.", err);
    }
  };

  const row = (key: "recordings" | "calls", label: string) => {
    const rule = shown[key];
    const set = (change: Partial<Rule>) => setForm({ ...shown, [key]: { ...rule, ...change } });
    return (
      <div className="flex flex-wrap items-center gap-3 text-sm" data-testid={`retention-${key}`}>
        <Checkbox id={`retention-${key}-on`} checked={rule.on} onCheckedChange={(checked) => set({ on: checked === true })} disabled={!form} />
        <label htmlFor={`retention-${key}-on`}>{label}</label>
        <Input
          type="number"
          inputMode="numeric"
          min={1}
          max={RETENTION_MAX_DAYS}
          className="w-24"
          aria-label={`${label} how many days`}
          aria-invalid={error !== null && rule.on}
          value={rule.days}
          disabled={!form || !rule.on}
          onChange={(e) => set({ days: e.target.value })}
        />
        <span>days</span>
      </div>
    );
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>Data retention</CardTitle>
        <CardDescription>
          Keep call recordings and records only as long as you need them. Off by default: everything is kept. The server removes older data every hour.
        </CardDescription>
      </CardHeader>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <CardContent className="grid gap-4">
          {row("recordings", "Delete recordings after")}
          {row("calls", "Delete calls after")}
          {error && (
            <p className="text-sm text-destructive" role="alert">
              {error}
            </p>
          )}
          <p className="text-sm text-muted-foreground">Deleting a call removes its transcript, recording and cost. Calls still in progress are never removed.</p>
        </CardContent>
        <CardFooter className="mt-6 flex justify-end">
          <Button type="submit" disabled={!form || save.isPending}>
            {save.isPending ? "Saving..." : "Save retention"}
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
