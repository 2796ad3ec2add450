import { CALL_SETTINGS_TEXTS as T, MAX_CONCURRENT_CALLS_LIMIT, OUTBOUND_TEXTS, callSettingsSchema } from "@shared/outbound";
import { Card, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { BUSY_MESSAGE_MAX_LENGTH, BUSY_MESSAGE_TEXTS as B, busyMessageSettingsSchema } from "@shared/calls";
import { queryKeys } from "@/lib/query-keys";
import { DialAllowListForm } from "./dial-allow-list-form";
import { SettingForm, useSettingForm } from "./setting-form";

/**
 * Settings → Calls: the organisation's limit of outbound calls at once (admins; GET/PUT
 * /api/settings/calls) and what its phone callers hear when every line is taken
 * (GET/PUT /api/settings/busy-message), and the destinations allowed past the dial-safety rules.
 */
export function CallSettingsCard() {
  const form = useSettingForm({
    queryKey: queryKeys.callSettings,
    path: "/api/settings/calls",
    toValue: (doc) => String(doc.max_concurrent_calls),
    toBody: (text) => ({ max_concurrent_calls: text.trim() ? Number(text) : Number.NaN }),
    schema: callSettingsSchema,
    texts: { saved: OUTBOUND_TEXTS.settingsSaved, saveFailed: T.saveFailed },
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>{T.title}</CardTitle>
        <CardDescription>{T.description}</CardDescription>
      </CardHeader>
      <SettingForm form={form} saveLabel={T.save}>
        <FormField label={T.label} error={form.error}>
          <Input
            type="number"
            inputMode="numeric"
            min={1}
            max={MAX_CONCURRENT_CALLS_LIMIT}
            className="w-32"
            value={form.value ?? ""}
            disabled={form.value === null}
            onChange={(e) => form.setValue(e.target.value)}
          />
        </FormField>
      </SettingForm>
      <BusyMessageForm />
      <DialAllowListForm />
    </Card>
  );
}

function BusyMessageForm() {
  const form = useSettingForm({
    queryKey: queryKeys.busyMessage,
    path: "/api/settings/busy-message",
    toValue: (doc) => doc.busy_message,
    toBody: (text) => ({ busy_message: text }),
    schema: busyMessageSettingsSchema,
    texts: { saved: B.saved, saveFailed: B.saveFailed },
    showSaved: true,
  });

  return (
    <SettingForm form={form} saveLabel={B.save} className="mt-6">
      <FormField label={B.label} description={B.hint} error={form.error}>
        <Input maxLength={BUSY_MESSAGE_MAX_LENGTH} value={form.value ?? ""} disabled={form.value === null} onChange={(e) => form.setValue(e.target.value)} />
      </FormField>
    </SettingForm>
  );
}
