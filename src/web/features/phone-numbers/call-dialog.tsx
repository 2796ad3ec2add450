import { useState } from "react";
import { OUTBOUND_TEXTS, outboundCallInputSchema } from "@shared/outbound";
import type { PhoneNumber } from "@shared/phone-numbers";
import { DiallingNotice, useDialling } from "@/components/reachability-notice";
import { DialogFormFooter, ErrorBanner } from "@/components/form-dialog";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { LabelledSelect } from "@/components/select-field";
import { Textarea } from "@/components/ui/textarea";

/** `name=value` lines into variables; blank lines are skipped. */
function parseVariables(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const at = line.indexOf("=");
    if (at > 0) out[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return out;
}

/** Phone Numbers → a row's "Call": the assistant calls someone from this number. */
export function CallDialog({
  number,
  assistants,
  onOpenChange,
  onCall,
}: {
  number: PhoneNumber | null;
  assistants: { id: string; name: string }[];
  onOpenChange: (open: boolean) => void;
  /** Resolves when Twilio has the call; a rejection's message is shown in the dialog. */
  onCall: (input: { assistant_id: string; phone_number_id: string; to: string; variables: Record<string, string> }) => Promise<void>;
}) {
  const [assistantId, setAssistantId] = useState("");
  const [to, setTo] = useState("");
  const [variables, setVariables] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [openedFor, setOpenedFor] = useState<PhoneNumber | null>(null);
  const dialling = useDialling();
  if (number !== openedFor) {
    setOpenedFor(number);
    setAssistantId(number?.assistant_id ?? "");
    setTo("");
    setVariables("");
    setError(null);
  }

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    if (!number) return;
    const parsed = outboundCallInputSchema.safeParse({ assistant_id: assistantId, phone_number_id: number.id, to, variables: parseVariables(variables) });
    if (!parsed.success) {
      setError(assistantId ? (parsed.error.issues[0]?.message ?? OUTBOUND_TEXTS.toInvalid) : OUTBOUND_TEXTS.noAssistant);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onCall({ ...parsed.data, variables: parsed.data.variables ?? {} });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Dialog open={number !== null} onOpenChange={(open) => !busy && onOpenChange(open)}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>Call from {number?.phone_number}</DialogTitle>
          <DialogDescription>The assistant calls this person from your number and speaks first.</DialogDescription>
        </DialogHeader>
        <DiallingNotice />
        <ErrorBanner message={error} testId="call-banner" />
        <form id="call-form" onSubmit={(e) => void submit(e)} noValidate className="grid gap-4">
          <LabelledSelect
            label="Assistant"
            placeholder="Select an assistant"
            options={assistants.map((a) => ({ value: a.id, label: a.name }))}
            value={assistantId}
            onValueChange={setAssistantId}
            triggerClassName="w-full"
          />
          <FormField label="Number to call" description="E.164, e.g. +442071234567">
            <Input value={to} onChange={(e) => setTo(e.target.value)} placeholder="+442071234567" inputMode="tel" autoComplete="off" />
          </FormField>
          <FormField label="Variables" description="One per line: first_name=Ann">
            <Textarea value={variables} onChange={(e) => setVariables(e.target.value)} rows={3} placeholder="first_name=Ann" />
          </FormField>
        </form>
        <DialogFormFooter formId="call-form" busy={busy} disabled={dialling.refused} onCancel={() => onOpenChange(false)}>
          {busy ? OUTBOUND_TEXTS.calling : "Call"}
        </DialogFormFooter>
      </DialogContent>
    </Dialog>
  );
}
