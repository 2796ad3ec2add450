import { useState } from "react";
import { CALL_SETTINGS_TEXTS as T, MAX_CONCURRENT_CALLS_LIMIT, OUTBOUND_TEXTS, callSettingsSchema, type CallSettings } from "@shared/outbound";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/sonner";
import { BUSY_MESSAGE_MAX_LENGTH, BUSY_MESSAGE_TEXTS as B, busyMessageSettingsSchema, type BusyMessageSettings } from "@shared/calls";
import { useSettingsDocument } from "@/lib/use-settings-document";
import { queryKeys } from "@/lib/query-keys";
import { DialAllowListForm } from "./dial-allow-list-form";

/**
 * Settings → Calls: the organisation's limit of outbound calls at once (admins; GET/PUT
 * /api/settings/calls) and what its phone callers hear when every line is taken
 * (GET/PUT /api/settings/busy-message), and the destinations allowed past the dial-safety rules.
 */
export function CallSettingsCard() {
  const { current, save } = useSettingsDocument<CallSettings>(queryKeys.callSettings, "/api/settings/calls");
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (value === null && current.data) setValue(String(current.data.max_concurrent_calls));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = callSettingsSchema.safeParse({ max_concurrent_calls: value?.trim() ? Number(value) : Number.NaN });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? T.saveFailed);
      return;
    }
    setError(null);
    try {
      await save.mutateAsync(parsed.data);
      toast.success(OUTBOUND_TEXTS.settingsSaved);
    } catch (err) {
      toast.error(T.saveFailed, { description: err instanceof Error ? err.message : undefined });
    }
  };

  return (
    <Card>
      <CardHeader>
        <CardTitle>{T.title}</CardTitle>
        <CardDescription>{T.description}</CardDescription>
      </CardHeader>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <CardContent>
          <FormField label={T.label} error={error ?? undefined}>
            <Input
              type="number"
              inputMode="numeric"
              min={1}
              max={MAX_CONCURRENT_CALLS_LIMIT}
              className="w-32"
              value={value ?? ""}
              disabled={value === null}
              onChange={(e) => setValue(e.target.value)}
            />
          </FormField>
        </CardContent>
        <CardFooter className="mt-6 flex justify-end">
          <Button type="submit" disabled={value === null || save.isPending}>
            {save.isPending ? "Saving..." : T.save}
          </Button>
        </CardFooter>
      </form>
      <BusyMessageForm />
      <DialAllowListForm />
    </Card>
  );
}

function BusyMessageForm() {
  const { current, save } = useSettingsDocument<BusyMessageSettings>(queryKeys.busyMessage, "/api/settings/busy-message");
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (value === null && current.data) setValue(current.data.busy_message);

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = busyMessageSettingsSchema.safeParse({ busy_message: value ?? "" });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? B.saveFailed);
      return;
    }
    setError(null);
    try {
      const saved = await save.mutateAsync(parsed.data);
      setValue(saved.busy_message);
      toast.success(B.saved);
    } catch (err) {
      toast.error(B.saveFailed, { description: err instanceof Error ? err.message : undefined });
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="mt-6">
      <CardContent>
        <FormField label={B.label} description={B.hint} error={error ?? undefined}>
          <Input maxLength={BUSY_MESSAGE_MAX_LENGTH} value={value ?? ""} disabled={value === null} onChange={(e) => setValue(e.target.value)} />
        </FormField>
      </CardContent>
      <CardFooter className="mt-6 flex justify-end">
        <Button type="submit" disabled={value === null || save.isPending}>
          {save.isPending ? "Saving..." : B.save}
        </Button>
      </CardFooter>
    </form>
  );
}
