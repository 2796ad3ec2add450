import { useState } from "react";
import { DIAL_SAFETY_TEXTS as T, dialAllowListSchema, type DialAllowList } from "@shared/dial-safety";
import { Button } from "@/components/ui/button";
import { CardContent, CardFooter } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/sonner";
import { useSettingsDocument } from "@/lib/use-settings-document";
import { queryKeys } from "@/lib/query-keys";

/**
 * Settings → Calls → Allowed destinations (admins; GET/PUT /api/settings/dial-allow-list): the
 * prefixes outbound calls may dial though a dial-safety rule (premium-rate, satellite, the
 * organisation's own numbers) would refuse them.
 */
export function DialAllowListForm() {
  const { current, save } = useSettingsDocument<DialAllowList>(queryKeys.dialAllowList, "/api/settings/dial-allow-list");
  const [value, setValue] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (value === null && current.data) setValue(current.data.allowed.join("\n"));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const entries = (value ?? "").split(/[\n,]/).map((v) => v.trim()).filter(Boolean);
    const parsed = dialAllowListSchema.safeParse({ allowed: entries });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? T.saveFailed);
      return;
    }
    setError(null);
    try {
      const saved = await save.mutateAsync(parsed.data);
      setValue(saved.allowed.join("\n"));
      toast.success(T.saved);
    } catch (err) {
      toast.error(T.saveFailed, { description: err instanceof Error ? err.message : undefined });
    }
  };

  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="mt-6">
      <CardContent>
        <FormField label={T.title} description={`${T.description} ${T.label}.`} error={error ?? undefined}>
          <Textarea rows={3} placeholder="+88216" value={value ?? ""} disabled={value === null} onChange={(e) => setValue(e.target.value)} />
        </FormField>
      </CardContent>
      <CardFooter className="mt-6 flex justify-end">
        <Button type="submit" disabled={value === null || save.isPending}>
          {save.isPending ? "Saving..." : T.save}
        </Button>
      </CardFooter>
    </form>
  );
}
