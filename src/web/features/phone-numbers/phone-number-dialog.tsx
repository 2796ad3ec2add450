import { zodResolver } from "@hookform/resolvers/zod";
import { AlertCircle } from "lucide-react";
import { useEffect, useState } from "react";
import { useForm, useWatch, type Resolver } from "react-hook-form";
import {
  PHONE_COUNTRIES,
  PHONE_NUMBER_MESSAGES as M,
  phoneNumberPurchaseSchema,
  type PhoneNumber,
  type PhoneNumberFormValues,
  type PhoneNumberPurchase,
} from "@shared/phone-numbers";
import { useQuery } from "@tanstack/react-query";
import { VERSION_MESSAGES, type AssistantVersionPage } from "@shared/versions";
import { LabelledSelect, SelectField } from "@/components/select-field";
import { apiWholePage } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { DialogFormFooter, ErrorBanner } from "@/components/form-dialog";
import { ReachabilityWarning } from "@/components/reachability-notice";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";

export type DialogState = { open: false } | { open: true; editing: PhoneNumber | null };

interface PhoneNumberDialogProps {
  state: DialogState;
  signedIn: boolean;
  assistants: { id: string; name: string }[];
  onOpenChange: (open: boolean) => void;
  /** Resolves when done; a rejection's message is shown in the banner (the dialog stays open). `pin`: the version pinned when editing (null: the latest). */
  onSubmit: (values: PhoneNumberPurchase, editing: PhoneNumber | null, pin: number | null) => Promise<void>;
}

const empty: PhoneNumberFormValues = { country_code: "", assistant_id: "" };

/** Spec §2: Purchase New Phone Number / Edit Phone Number, the country locked when editing. */
export function PhoneNumberDialog({ state, signedIn, assistants, onOpenChange, onSubmit }: PhoneNumberDialogProps) {
  const editing = state.open ? state.editing : null;
  const [banner, setBanner] = useState<string | null>(null);
  const form = useForm<PhoneNumberFormValues, unknown, PhoneNumberPurchase>({
    // The selects start empty (""), which the schema refuses with the spec's messages: the form's
    // values are wider than the schema's input on purpose.
    resolver: zodResolver(phoneNumberPurchaseSchema) as unknown as Resolver<PhoneNumberFormValues, unknown, PhoneNumberPurchase>,
    defaultValues: empty,
    mode: "onSubmit",
    reValidateMode: "onChange",
  });
  const { errors, isSubmitting } = form.formState;
  // Editing: the version of the chosen assistant the number answers with ("latest" unpins).
  const [pin, setPin] = useState({ assistant: "", version: "latest" });
  const chosen = useWatch({ control: form.control, name: "assistant_id" });
  const versions = useQuery({
    queryKey: queryKeys.versions(chosen),
    queryFn: () => apiWholePage<AssistantVersionPage>(`/api/assistants/${encodeURIComponent(chosen)}/versions`),
    enabled: Boolean(editing && chosen),
  });

  // Each opening starts without an old banner, from the number being edited or blank for a purchase.
  const [openedFor, setOpenedFor] = useState(state);
  if (state !== openedFor) {
    setOpenedFor(state);
    setBanner(null);
    const current = state.open ? state.editing : null;
    setPin({ assistant: current?.assistant_id ?? "", version: current?.assistant_version != null ? String(current.assistant_version) : "latest" });
  }
  useEffect(() => {
    if (!state.open) return;
    // A SIP number has no country: its select is hidden and the value never sent (the page leaves it out).
    form.reset(state.editing ? { country_code: state.editing.country_code ?? PHONE_COUNTRIES[0].code, assistant_id: state.editing.assistant_id ?? "" } : empty);
  }, [state, form]);

  const submit = form.handleSubmit(async (values) => {
    setBanner(null);
    try {
      // A pin names a version of one assistant: choosing another starts on its latest.
      const pinned = pin.version !== "latest" && pin.assistant === values.assistant_id;
      await onSubmit(values, editing, pinned ? Number(pin.version) : null);
    } catch (err) {
      setBanner(err instanceof Error && err.message ? err.message : M.purchaseFailed);
    }
  });

  return (
    <Dialog open={state.open} onOpenChange={(open) => !isSubmitting && onOpenChange(open)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{editing ? "Edit Phone Number" : "Purchase New Phone Number"}</DialogTitle>
          <DialogDescription>
            {editing
              ? `Choose which assistant answers ${editing.phone_number}.`
              : "Buy a local number through your Twilio account. Calls to it are answered by the assistant you choose."}
          </DialogDescription>
        </DialogHeader>
        {!editing && <ReachabilityWarning />}
        {!signedIn && (
          <p role="alert" className="flex items-center gap-2 rounded-md border border-destructive/40 bg-destructive/5 p-3 text-sm text-destructive">
            <AlertCircle className="size-4 shrink-0" />
            {M.mustBeLoggedInToPurchase}
          </p>
        )}
        <ErrorBanner message={banner} testId="phone-number-banner" />
        <form id="phone-number-form" onSubmit={submit} noValidate className="grid gap-4">
          {editing?.provider !== "sip" && (
          <SelectField
            control={form.control}
            name="country_code"
            label="Country"
            error={errors.country_code?.message}
            description={editing ? "The country of a number cannot be changed." : undefined}
            placeholder="Select a country"
            disabled={Boolean(editing)}
            options={PHONE_COUNTRIES.map((c) => ({ value: c.code, label: `${c.name} (${c.dial})` }))}
          />
          )}
          <SelectField
            control={form.control}
            name="assistant_id"
            label="Assistant"
            error={errors.assistant_id?.message}
            description={assistants.length === 0 ? "Create an assistant on the Assistants page first." : undefined}
            placeholder="Select an assistant"
            options={assistants.map((a) => ({ value: a.id, label: a.name }))}
          />
          {editing && versions.data && (
            <LabelledSelect
              label={VERSION_MESSAGES.pinLabel}
              description={VERSION_MESSAGES.pinDescription}
              placeholder={VERSION_MESSAGES.pinLatest(versions.data.live_version)}
              value={pin.assistant === chosen ? pin.version : "latest"}
              onValueChange={(version) => setPin({ assistant: chosen, version })}
              triggerClassName="w-full"
              options={[
                { value: "latest", label: VERSION_MESSAGES.pinLatest(versions.data.live_version) },
                ...versions.data.data.map((v) => ({ value: String(v.version), label: VERSION_MESSAGES.pinVersion(v.version, v.note) })),
              ]}
            />
          )}
        </form>
        <DialogFormFooter formId="phone-number-form" busy={isSubmitting} onCancel={() => onOpenChange(false)}>
          {isSubmitting ? "Processing..." : editing ? "Save Changes" : "Purchase Phone Number"}
        </DialogFormFooter>
      </DialogContent>
    </Dialog>
  );
}
