import { RETENTION_MAX_DAYS, RETENTION_MESSAGES, retentionSettingsSchema, type RetentionSettings } from "@shared/retention";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Checkbox } from "@/components/ui/checkbox";
import { Input } from "@/components/ui/input";
import { queryKeys } from "@/lib/query-keys";
import { SettingForm, useSettingForm } from "./setting-form";

type Rule = { on: boolean; days: string };
type Rules = { recordings: Rule; calls: Rule };
const toRule = (days: number | null | undefined): Rule => ({ on: days != null, days: days != null ? String(days) : "30" });
const daysOf = (rule: Rule) => (rule.on ? (rule.days.trim() === "" ? Number.NaN : Number(rule.days)) : null);

/** Data retention: how long recordings and calls are kept (off by default; the server enforces it hourly). */
export function RetentionCard() {
  const form = useSettingForm<RetentionSettings, Rules>({
    queryKey: queryKeys.retention,
    path: "/api/settings/retention",
    toValue: (doc) => ({ recordings: toRule(doc.recordings_days), calls: toRule(doc.calls_days) }),
    toBody: (rules) => ({ recordings_days: daysOf(rules.recordings), calls_days: daysOf(rules.calls) }),
    schema: retentionSettingsSchema,
    texts: { saved: RETENTION_MESSAGES.saved, saveFailed: RETENTION_MESSAGES.saveFailed },
  });
  const shown = form.value ?? { recordings: toRule(null), calls: toRule(null) };

  const row = (key: keyof Rules, label: string) => {
    const rule = shown[key];
    const set = (change: Partial<Rule>) => form.setValue({ ...shown, [key]: { ...rule, ...change } });
    return (
      <div className="flex flex-wrap items-center gap-3 text-sm" data-testid={`retention-${key}`}>
        <Checkbox id={`retention-${key}-on`} checked={rule.on} onCheckedChange={(checked) => set({ on: checked === true })} disabled={form.value === null} />
        <label htmlFor={`retention-${key}-on`}>{label}</label>
        <Input
          type="number"
          inputMode="numeric"
          min={1}
          max={RETENTION_MAX_DAYS}
          className="w-24"
          aria-label={`${label} how many days`}
          aria-invalid={form.error !== undefined && rule.on}
          value={rule.days}
          disabled={form.value === null || !rule.on}
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
      <SettingForm form={form} saveLabel="Save retention">
        <div className="grid gap-4">
          {row("recordings", "Delete recordings after")}
          {row("calls", "Delete calls after")}
          {form.error && (
            <p className="text-sm text-destructive" role="alert">
              {form.error}
            </p>
          )}
          <p className="text-sm text-muted-foreground">Deleting a call removes its transcript, recording and cost. Calls still in progress are never removed.</p>
        </div>
      </SettingForm>
    </Card>
  );
}
