import { DIAL_SAFETY_TEXTS as T, dialAllowListSchema } from "@shared/dial-safety";
import { FormField } from "@/components/ui/form-field";
import { Textarea } from "@/components/ui/textarea";
import { queryKeys } from "@/lib/query-keys";
import { SettingForm, useSettingForm } from "./setting-form";

/**
 * Settings → Calls → Allowed destinations (admins; GET/PUT /api/settings/dial-allow-list): the
 * prefixes outbound calls may dial though a dial-safety rule (premium-rate, satellite, the
 * organisation's own numbers) would refuse them.
 */
export function DialAllowListForm() {
  const form = useSettingForm({
    queryKey: queryKeys.dialAllowList,
    path: "/api/settings/dial-allow-list",
    toValue: (doc) => doc.allowed.join("\n"),
    toBody: (text) => ({ allowed: text.split(/[\n,]/).map((v) => v.trim()).filter(Boolean) }),
    schema: dialAllowListSchema,
    texts: { saved: T.saved, saveFailed: T.saveFailed },
    showSaved: true,
  });

  return (
    <SettingForm form={form} saveLabel={T.save} className="mt-6">
      <FormField label={T.title} description={`${T.description} ${T.label}.`} error={form.error}>
        <Textarea rows={3} placeholder="+88216" value={form.value ?? ""} disabled={form.value === null} onChange={(e) => form.setValue(e.target.value)} />
      </FormField>
    </SettingForm>
  );
}
