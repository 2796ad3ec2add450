import { DiallingNotice } from "@/components/reachability-notice";
import { useMemo, useState } from "react";
import { useNavigate } from "react-router";
import { CALL_OUTCOMES } from "@shared/outbound";
import { PHONE_COUNTRIES, type PhoneCountryCode } from "@shared/phone-numbers";
import { CAMPAIGN_PAGE_TEXTS as T, CONTACT_OUTCOME_LABELS, campaignInputSchema, type CampaignWindow } from "@shared/campaigns";
import { ErrorBanner } from "@/components/form-dialog";
import { SheetFormFooter } from "@/components/sheet-form-footer";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { LabelledSelect } from "@/components/select-field";
import { Sheet, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { ContactsUpload, InvalidRows } from "./contacts-upload";
import { previewCsv, type CsvPreview } from "./csv-preview";
import { DEFAULT_WINDOW, WindowsField } from "./schedule-fields";
import { useAssistantNames, useCreateCampaign, useDialPolicy, usePhoneNumberOptions, type CreatedCampaign } from "./use-campaigns";

const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
/** Every IANA zone the browser knows (UTC first), for the time zone field's list. */
const TIME_ZONES = ["UTC", ...(typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone").filter((z) => z !== "UTC") : [])];
/** The select's value for "no default country" (a select item cannot have an empty value). */
const NO_COUNTRY = "none";
const num = (text: string) => (text.trim() === "" ? Number.NaN : Number(text));

function initialForm() {
  return {
    name: "",
    assistantId: "",
    phoneNumberId: "",
    csv: "",
    fileName: null as string | null,
    defaultCountry: NO_COUNTRY as string,
    timezone: browserTimeZone(),
    startAt: "",
    windows: [{ ...DEFAULT_WINDOW }] as CampaignWindow[],
    maxConcurrent: "5",
    perMinute: "",
    maxAttempts: "1",
    delaySeconds: "300",
    retryOn: [] as string[],
  };
}

/** Create campaign: who calls, from which number, whom (the CSV), when, and how often to try again. */
export function CampaignSheet({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const navigate = useNavigate();
  const assistants = useAssistantNames();
  const numbers = usePhoneNumberOptions();
  const create = useCreateCampaign();
  const dialPolicy = useDialPolicy();
  const [form, setForm] = useState(initialForm);
  // Read again when the numbers or the allow-list arrive after the file was chosen.
  const country = form.defaultCountry === NO_COUNTRY ? null : (form.defaultCountry as PhoneCountryCode);
  const preview = useMemo<CsvPreview | null>(() => (form.csv ? previewCsv(form.csv, dialPolicy, country) : null), [form.csv, dialPolicy, country]);
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedCampaign | null>(null);
  const set = (change: Partial<ReturnType<typeof initialForm>>) => setForm((f) => ({ ...f, ...change }));

  const close = () => {
    onOpenChange(false);
    setForm(initialForm());
    setError(null);
    setCreated(null);
  };

  const onFile = async (file: File) => {
    const text = await file.text();
    set({ csv: text, fileName: file.name });
  };

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    // The choices not made yet, said as the form asks for them (the schema would say "not found").
    const missing = !form.assistantId ? T.pickAssistant : !form.phoneNumberId ? T.pickNumber : !form.csv ? T.chooseFile : null;
    if (form.name.trim() && missing) {
      setError(missing);
      return;
    }
    const parsed = campaignInputSchema.safeParse({
      name: form.name,
      assistant_id: form.assistantId,
      phone_number_id: form.phoneNumberId,
      contacts_csv: form.csv,
      default_country: country,
      max_concurrent_calls: num(form.maxConcurrent),
      calls_per_minute: form.perMinute.trim() === "" ? null : num(form.perMinute),
      schedule: { timezone: form.timezone.trim(), start_at: form.startAt ? new Date(form.startAt).toISOString() : null, windows: form.windows },
      retry: { max_attempts: num(form.maxAttempts), delay_seconds: num(form.delaySeconds), on: form.retryOn },
    });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? T.createFailed);
      return;
    }
    if (preview?.error) {
      setError(preview.error);
      return;
    }
    setError(null);
    try {
      setCreated(await create.mutateAsync(parsed.data));
    } catch (err) {
      setError(err instanceof Error ? err.message : T.createFailed);
    }
  };

  return (
    <Sheet open={open} onOpenChange={(o) => !o && close()}>
      <SheetContent className="w-full overflow-y-auto sm:w-[45%] sm:max-w-[45%]">
        <SheetHeader className="px-6 pt-6 pb-2">
          <SheetTitle className="text-xl">{T.create}</SheetTitle>
          <SheetDescription>{T.emptyHint}</SheetDescription>
        </SheetHeader>
        {created ? (
          <div className="grid gap-4 px-6 pb-6" data-testid="campaign-created">
            <p className="font-medium">{T.created(created.contacts.valid)}</p>
            <InvalidRows invalid={created.contacts.invalid} label={T.skipped(created.contacts.invalid.length)} />
            <div className="flex justify-end gap-2">
              <Button variant="outline" onClick={close}>
                Close
              </Button>
              <Button
                onClick={() => {
                  close();
                  navigate(`/campaigns/${created.id}`);
                }}
              >
                Open campaign
              </Button>
            </div>
          </div>
        ) : (
          <form onSubmit={(e) => void submit(e)} noValidate className="flex flex-1 flex-col">
            <div className="grid gap-5 px-6 pb-6">
              <DiallingNotice />
              <ErrorBanner message={error} testId="campaign-error" />
              <FormField label="Name">
                <Input value={form.name} onChange={(e) => set({ name: e.target.value })} placeholder="November renewals" />
              </FormField>
              <LabelledSelect
                label="Assistant"
                placeholder={T.pickAssistant}
                options={(assistants.data ?? []).map((a) => ({ value: a.id, label: a.name }))}
                value={form.assistantId}
                onValueChange={(v) => set({ assistantId: v })}
                triggerClassName="w-full"
              />
              <LabelledSelect
                label="Phone number"
                description="The number the calls come from."
                placeholder={T.pickNumber}
                options={(numbers.data ?? []).map((n) => ({ value: n.id, label: n.phone_number, disabled: n.status !== "active" }))}
                value={form.phoneNumberId}
                onValueChange={(v) => set({ phoneNumberId: v })}
                triggerClassName="w-full"
              />
              <ContactsUpload fileName={form.fileName} preview={preview} onFile={(f) => void onFile(f)} />
              <LabelledSelect
                label={T.defaultCountry}
                placeholder={T.noDefaultCountry}
                description={T.defaultCountryHelp}
                options={[{ value: NO_COUNTRY, label: T.noDefaultCountry }, ...PHONE_COUNTRIES.map((c) => ({ value: c.code, label: `${c.name} (${c.dial})` }))]}
                value={form.defaultCountry}
                onValueChange={(v) => set({ defaultCountry: v })}
                triggerClassName="w-full"
              />
              <FormField label="Time zone" description="IANA, e.g. Europe/London; a contact's own timezone column wins.">
                {(control) => (
                  <>
                    {/* Typed or picked from the browser's list of zones; it starts as the browser's own. */}
                    <Input {...control} list="campaign-time-zones" autoComplete="off" value={form.timezone} onChange={(e) => set({ timezone: e.target.value })} />
                    <datalist id="campaign-time-zones">
                      {TIME_ZONES.map((zone) => (
                        <option key={zone} value={zone} />
                      ))}
                    </datalist>
                  </>
                )}
              </FormField>
              <FormField label="Start at (optional)" description="Not before this time, once started.">
                <Input type="datetime-local" value={form.startAt} onChange={(e) => set({ startAt: e.target.value })} />
              </FormField>
              <WindowsField windows={form.windows} onChange={(windows) => set({ windows })} />
              <div className="grid gap-4 sm:grid-cols-2">
                <FormField label="Max concurrent calls">
                  <Input type="number" min={1} inputMode="numeric" value={form.maxConcurrent} onChange={(e) => set({ maxConcurrent: e.target.value })} />
                </FormField>
                <FormField label="Calls started per minute (optional)">
                  <Input type="number" min={1} inputMode="numeric" value={form.perMinute} onChange={(e) => set({ perMinute: e.target.value })} />
                </FormField>
                <FormField label="Attempts per contact">
                  <Input type="number" min={1} max={10} inputMode="numeric" value={form.maxAttempts} onChange={(e) => set({ maxAttempts: e.target.value })} />
                </FormField>
                <FormField label="Retry after (seconds)">
                  <Input type="number" min={30} inputMode="numeric" value={form.delaySeconds} onChange={(e) => set({ delaySeconds: e.target.value })} />
                </FormField>
              </div>
              <fieldset className="grid gap-2">
                <legend className="mb-2 text-sm font-medium">Retry when the call ends in</legend>
                <div className="flex flex-wrap gap-4">
                  {CALL_OUTCOMES.map((o) => (
                    <label key={o} htmlFor={`retry-${o}`} className="flex items-center gap-1.5 text-sm">
                      <Checkbox
                        id={`retry-${o}`}
                        checked={form.retryOn.includes(o)}
                        onCheckedChange={(c) => set({ retryOn: c === true ? [...form.retryOn, o] : form.retryOn.filter((x) => x !== o) })}
                      />
                      {CONTACT_OUTCOME_LABELS[o]}
                    </label>
                  ))}
                </div>
              </fieldset>
            </div>
            <SheetFormFooter onCancel={close} submitting={create.isPending} submitLabel={create.isPending ? T.creating : T.create} />
          </form>
        )}
      </SheetContent>
    </Sheet>
  );
}
