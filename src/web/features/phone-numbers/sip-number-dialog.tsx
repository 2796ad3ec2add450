import { useState } from "react";
import { sipPhoneNumberSchema, type SipPhoneNumberInput } from "@shared/phone-numbers";
import { SIP_NUMBER_MESSAGES } from "@shared/sip-trunks";
import { LabelledSelect } from "@/components/select-field";
import { DialogFormFooter, ErrorBanner, firstIssues, useBannerSubmit } from "@/components/form-dialog";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";

interface SipNumberDialogProps {
  open: boolean;
  trunks: { id: string; name: string }[];
  assistants: { id: string; name: string }[];
  onOpenChange: (open: boolean) => void;
  /** Rejects with the server's words, shown in the banner. */
  onSubmit: (input: SipPhoneNumberInput) => Promise<void>;
}

/** Add SIP number: an E.164 number or an extension on one of the trunks, answered by an assistant. Nothing is bought. */
export function SipNumberDialog({ open, trunks, assistants, onOpenChange, onSubmit }: SipNumberDialogProps) {
  const [values, setValues] = useState({ sip_trunk_id: "", phone_number: "", assistant_id: "" });
  const [errors, setErrors] = useState<Partial<Record<string, string>>>({});
  const { banner, setBanner, busy, run } = useBannerSubmit();
  const [openedFor, setOpenedFor] = useState(open);
  if (open !== openedFor) {
    setOpenedFor(open);
    if (open) {
      setValues({ sip_trunk_id: trunks.length === 1 ? trunks[0]!.id : "", phone_number: "", assistant_id: "" });
      setErrors({});
      setBanner(null);
    }
  }

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const parsed = sipPhoneNumberSchema.safeParse({ provider: "sip", ...values });
    if (!parsed.success) return setErrors(firstIssues(parsed.error.issues));
    setErrors({});
    await run(() => onSubmit(parsed.data));
  };

  return (
    <Dialog open={open} onOpenChange={(o) => !busy && onOpenChange(o)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Add SIP Number</DialogTitle>
          <DialogDescription>A number (or an extension) your trunk or PBX sends here. Nothing is bought.</DialogDescription>
        </DialogHeader>
        <ErrorBanner message={banner} testId="sip-number-banner" />
        <form id="sip-number-form" onSubmit={submit} noValidate className="grid gap-4">
          <LabelledSelect
            label="SIP trunk"
            error={errors.sip_trunk_id}
            placeholder="Select a trunk"
            description={trunks.length === 0 ? "Add a SIP trunk first." : undefined}
            value={values.sip_trunk_id}
            onValueChange={(v) => setValues((s) => ({ ...s, sip_trunk_id: v }))}
            options={trunks.map((t) => ({ value: t.id, label: t.name }))}
          />
          <FormField label="Number or extension" error={errors.phone_number} description={SIP_NUMBER_MESSAGES.invalidNumber.replace("Enter", "For example")}>
            <Input value={values.phone_number} onChange={(e) => setValues((s) => ({ ...s, phone_number: e.target.value }))} placeholder="+14155550100" />
          </FormField>
          <LabelledSelect
            label="Assistant"
            error={errors.assistant_id}
            placeholder="Select an assistant"
            value={values.assistant_id}
            onValueChange={(v) => setValues((s) => ({ ...s, assistant_id: v }))}
            options={assistants.map((a) => ({ value: a.id, label: a.name }))}
          />
        </form>
        <DialogFormFooter formId="sip-number-form" busy={busy} onCancel={() => onOpenChange(false)}>
          Add SIP Number
        </DialogFormFooter>
      </DialogContent>
    </Dialog>
  );
}
