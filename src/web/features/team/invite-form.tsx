import { zodResolver } from "@hookform/resolvers/zod";
import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { useForm, useWatch } from "react-hook-form";
import { ROLE_DESCRIPTIONS, ROLE_LABELS, type Role } from "@shared/roles";
import { inviteSchema, TEAM_MESSAGES, type InviteInput } from "@shared/team";
import { SelectField } from "@/components/select-field";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { assignableRoles } from "./team-format";
import { useInvite } from "./use-team";

/** Invite by e-mail with a role; the link is shown to copy (it is the only way when no e-mail is sent). */
export function InviteForm({ role }: { role: Role }) {
  const invite = useInvite();
  const [link, setLink] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const form = useForm<InviteInput>({ resolver: zodResolver(inviteSchema), defaultValues: { email: "", role: "viewer" } });
  const { errors } = form.formState;
  const chosen = useWatch({ control: form.control, name: "role" });
  const options = assignableRoles(role).map((r) => ({ value: r, label: ROLE_LABELS[r] }));

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const created = await invite.mutateAsync(values);
      setLink(created.url);
      setCopied(false);
      form.reset({ email: "", role: values.role });
      toast.success(created.emailed ? TEAM_MESSAGES.invited : TEAM_MESSAGES.invitedNoMail);
    } catch (err) {
      toastFailure(TEAM_MESSAGES.inviteFailed, err);
    }
  });

  const copy = async () => {
    if (!link) return;
    await navigator.clipboard.writeText(link);
    setCopied(true);
    toast.success(TEAM_MESSAGES.linkCopied);
  };

  return (
    <div className="grid gap-3">
      <form onSubmit={onSubmit} noValidate aria-label="Invite a member" className="grid gap-3 sm:grid-cols-[1fr_12rem_auto] sm:items-start">
        <FormInput form={form} name="email" label="E-mail" type="email" placeholder="colleague@company.com" />
        <SelectField control={form.control} name="role" label="Role" placeholder="Choose a role" options={options} error={errors.role?.message} />
        <Button type="submit" className="sm:mt-[1.375rem]" disabled={invite.isPending}>
          {invite.isPending ? "Inviting..." : "Invite"}
        </Button>
      </form>
      {chosen && <p className="text-sm text-muted-foreground">{ROLE_DESCRIPTIONS[chosen]}</p>}
      {link && (
        <div className="flex items-center gap-2">
          <code className="min-w-0 flex-1 break-all rounded-md border bg-muted px-3 py-2 font-mono text-xs" data-testid="invitation-link">
            {link}
          </code>
          <Button type="button" variant="outline" size="sm" onClick={() => void copy()}>
            {copied ? <Check /> : <Copy />}
            Copy
          </Button>
        </div>
      )}
    </div>
  );
}
