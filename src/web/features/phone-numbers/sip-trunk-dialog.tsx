import { useState } from "react";
import { SIP_TRANSFER_METHOD_LABELS, SIP_TRANSFER_METHODS, SIP_TRANSPORTS, SIP_TRUNK_MESSAGES as M, sipTrunkInputSchema, sipTrunkUpdateSchema, type SipTrunk } from "@shared/sip-trunks";
import { LabelledSelect } from "@/components/select-field";
import { DialogFormFooter, ErrorBanner, firstIssues, useBannerSubmit } from "@/components/form-dialog";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";

export type TrunkDialogState = { open: false } | { open: true; editing: SipTrunk | null };

type Form = Record<"name" | "inbound_addresses" | "inbound_username" | "inbound_password" | "outbound_uri" | "outbound_username" | "outbound_password" | "register_expires" | "caller_id" | "prefix" | "transport" | "transfer_method", string> & { register: boolean };

function formOf(trunk: SipTrunk | null): Form {
  return {
    name: trunk?.name ?? "",
    inbound_addresses: trunk?.inbound_addresses.join("\n") ?? "",
    inbound_username: trunk?.inbound_username ?? "",
    inbound_password: "",
    outbound_uri: trunk?.outbound_uri ?? "",
    outbound_username: trunk?.outbound_username ?? "",
    outbound_password: "",
    register: trunk?.register ?? false,
    register_expires: String(trunk?.register_expires ?? 3600),
    caller_id: trunk?.caller_id ?? "",
    prefix: trunk?.prefix ?? "",
    transport: trunk?.transport ?? "udp",
    transfer_method: trunk?.transfer_method ?? "refer",
  };
}

/** The body to send: passwords only when typed (an edit keeps the saved ones otherwise). */
function bodyOf(form: Form, editing: SipTrunk | null): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: form.name,
    inbound_addresses: form.inbound_addresses.split(/[\s,]+/).filter(Boolean),
    inbound_username: form.inbound_username || null,
    outbound_uri: form.outbound_uri || null,
    outbound_username: form.outbound_username || null,
    register: form.register,
    register_expires: Number(form.register_expires),
    caller_id: form.caller_id || null,
    prefix: form.prefix || null,
    transport: form.transport,
    transfer_method: form.transfer_method,
  };
  if (form.inbound_password || !editing) body.inbound_password = form.inbound_password || null;
  if (form.outbound_password || !editing) body.outbound_password = form.outbound_password || null;
  // Clearing a username clears its password too.
  if (editing && !form.inbound_username) body.inbound_password = null;
  if (editing && !form.outbound_username) body.outbound_password = null;
  return body;
}

export function SipTrunkDialog({ state, onOpenChange, onSubmit }: { state: TrunkDialogState; onOpenChange: (open: boolean) => void; onSubmit: (body: Record<string, unknown>, editing: SipTrunk | null) => Promise<void> }) {
  const editing = state.open ? state.editing : null;
  const [form, setForm] = useState<Form>(formOf(null));
  const [errors, setErrors] = useState<Partial<Record<keyof Form, string>>>({});
  const { banner, setBanner, busy, run } = useBannerSubmit();
  const [openedFor, setOpenedFor] = useState(state);
  if (state !== openedFor) {
    setOpenedFor(state);
    setForm(formOf(editing));
    setErrors({});
    setBanner(null);
  }
  const set = (key: keyof Form) => (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => setForm((f) => ({ ...f, [key]: e.target.value }));

  const submit = async (event: React.FormEvent) => {
    event.preventDefault();
    const body = bodyOf(form, editing);
    const parsed = (editing ? sipTrunkUpdateSchema : sipTrunkInputSchema).safeParse(body);
    if (!parsed.success) return setErrors(firstIssues<keyof Form>(parsed.error.issues));
    setErrors({});
    await run(() => onSubmit(body, editing));
  };

  const passwordHint = (saved: boolean | undefined) => (editing && saved ? M.passwordKept : undefined);

  return (
    <Dialog open={state.open} onOpenChange={(open) => !busy && onOpenChange(open)}>
      <DialogContent className="max-h-[90dvh] overflow-y-auto sm:max-w-2xl">
        <DialogHeader>
          <DialogTitle>{editing ? `Edit ${editing.name}` : "Add SIP trunk"}</DialogTitle>
          <DialogDescription>Who may send calls to your numbers, and where calls go out. {M.passwordsNotShown}</DialogDescription>
        </DialogHeader>
        <ErrorBanner message={banner} testId="sip-trunk-banner" />
        <form id="sip-trunk-form" onSubmit={submit} noValidate className="grid gap-4 sm:grid-cols-2">
          <FormField label="Name" error={errors.name} className="sm:col-span-2">
            <Input value={form.name} onChange={set("name")} placeholder="FreePBX" />
          </FormField>
          <h3 className="text-sm font-semibold sm:col-span-2">Calls in</h3>
          <FormField label="Source addresses" error={errors.inbound_addresses} description="IP addresses or CIDR ranges, one per line (IPv4 or IPv6)" className="sm:col-span-2">
            <Textarea value={form.inbound_addresses} onChange={set("inbound_addresses")} rows={3} placeholder={"203.0.113.10\n198.51.100.0/24"} />
          </FormField>
          <FormField label="Inbound username" error={errors.inbound_username}>
            <Input value={form.inbound_username} onChange={set("inbound_username")} autoComplete="off" />
          </FormField>
          <FormField label="Inbound password" error={errors.inbound_password} description={passwordHint(editing?.has_inbound_password)}>
            <Input type="password" value={form.inbound_password} onChange={set("inbound_password")} autoComplete="new-password" />
          </FormField>
          <h3 className="text-sm font-semibold sm:col-span-2">Calls out</h3>
          <FormField label="Outbound address (SIP URI)" error={errors.outbound_uri} className="sm:col-span-2">
            <Input value={form.outbound_uri} onChange={set("outbound_uri")} placeholder="sip:pbx.example.com:5060" />
          </FormField>
          <FormField label="Outbound username" error={errors.outbound_username}>
            <Input value={form.outbound_username} onChange={set("outbound_username")} autoComplete="off" />
          </FormField>
          <FormField label="Outbound password" error={errors.outbound_password} description={passwordHint(editing?.has_outbound_password)}>
            <Input type="password" value={form.outbound_password} onChange={set("outbound_password")} autoComplete="new-password" />
          </FormField>
          <div className="flex items-center gap-2 sm:col-span-2">
            <Checkbox id="sip-register" checked={form.register} onCheckedChange={(v) => setForm((f) => ({ ...f, register: v === true }))} />
            <Label htmlFor="sip-register">Register with the outbound address</Label>
          </div>
          <FormField label="Registration expiry (seconds)" error={errors.register_expires}>
            <Input inputMode="numeric" value={form.register_expires} onChange={set("register_expires")} disabled={!form.register} />
          </FormField>
          <LabelledSelect
            label="Transport"
            placeholder="UDP"
            error={errors.transport}
            value={form.transport}
            onValueChange={(v) => setForm((f) => ({ ...f, transport: v }))}
            options={SIP_TRANSPORTS.map((t) => ({ value: t, label: t.toUpperCase() }))}
          />
          <FormField label="Caller ID" error={errors.caller_id} description="E.164, presented on outbound calls">
            <Input value={form.caller_id} onChange={set("caller_id")} placeholder="+14155550100" />
          </FormField>
          <FormField label="Dial prefix" error={errors.prefix}>
            <Input value={form.prefix} onChange={set("prefix")} placeholder="9" />
          </FormField>
          <LabelledSelect
            label="Transfers"
            placeholder={SIP_TRANSFER_METHOD_LABELS.refer}
            error={errors.transfer_method}
            value={form.transfer_method}
            onValueChange={(v) => setForm((f) => ({ ...f, transfer_method: v }))}
            options={SIP_TRANSFER_METHODS.map((m) => ({ value: m, label: SIP_TRANSFER_METHOD_LABELS[m] }))}
          />
        </form>
        <DialogFormFooter formId="sip-trunk-form" busy={busy} onCancel={() => onOpenChange(false)}>
          {editing ? "Save Changes" : "Add Trunk"}
        </DialogFormFooter>
      </DialogContent>
    </Dialog>
  );
}
