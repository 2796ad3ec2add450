import { zodResolver } from "@hookform/resolvers/zod";
import { CheckCircle2, ExternalLink, Info, Loader2, TriangleAlert } from "lucide-react";
import { useEffect, useState, type ReactNode } from "react";
import { useForm } from "react-hook-form";
import {
  MASKED_CREDENTIAL,
  TWILIO_CREDENTIAL_MESSAGES as M,
  twilioCredentialsInputSchema,
  type CredentialVerification,
  type TwilioCredentialsInput,
} from "@shared/credentials";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/sonner";
import { useCredential, useSaveTwilioCredentials } from "./use-credential";
import { ErrorLine } from "@/components/form-dialog";

type Tone = "muted" | "success" | "warning";

function StatusLine({ tone, children, detail }: { tone: Tone; children: ReactNode; detail?: string }) {
  const Icon = tone === "success" ? CheckCircle2 : tone === "warning" ? TriangleAlert : Info;
  const color = tone === "success" ? "text-success" : tone === "warning" ? "text-warning" : "text-muted-foreground";
  return (
    <div role="status" data-testid="twilio-status" className={`grid gap-0.5 text-sm ${color}`}>
      <p className="flex items-center gap-2 font-medium">
        <Icon className="size-4 shrink-0" />
        {children}
      </p>
      {detail && <p className="pl-6 text-muted-foreground">{detail}</p>}
    </div>
  );
}

/** Telephony provider integration (spec §2 Settings, §8): the user's Twilio Account SID and Auth Token. */
export function TwilioCredentialsCard() {
  const sid = useCredential("twilio_account_sid");
  const token = useCredential("twilio_auth_token");
  const save = useSaveTwilioCredentials();
  const [verification, setVerification] = useState<CredentialVerification | null>(null);
  const form = useForm<TwilioCredentialsInput>({
    resolver: zodResolver(twilioCredentialsInputSchema),
    defaultValues: { account_sid: "", auth_token: "" },
  });
  const { errors } = form.formState;

  const fetchFailed = sid.isError || token.isError;
  useEffect(() => {
    if (fetchFailed) toast.error(M.fetchFailed, { id: "twilio-fetch-failed" });
  }, [fetchFailed]);

  const bothExist = Boolean(sid.data?.exists && token.data?.exists);
  const oneExists = Boolean(sid.data?.exists) !== Boolean(token.data?.exists);
  const bothMissing = errors.account_sid?.message === M.bothRequired || errors.auth_token?.message === M.bothRequired;
  const sidError = errors.account_sid?.message && errors.account_sid.message !== M.bothRequired ? errors.account_sid.message : undefined;

  const onSubmit = form.handleSubmit(async (input) => {
    setVerification(null);
    try {
      const result = await save.mutateAsync(input);
      form.reset({ account_sid: "", auth_token: "" });
      setVerification(result.verification);
      // A refusal is not a success: the red toast names what Twilio refused, in plain words.
      if (result.verification.verified) toast.success(M.savedToast, { description: result.verification.message });
      else toast.error(result.verification.message === M.unreachable ? M.uncheckedToast : M.refusedToast, { description: result.verification.message });
    } catch (err) {
      toast.error(`${M.saveFailed}${err instanceof Error ? err.message : "Unknown error"}`);
    }
  });

  let status: ReactNode;
  if (save.isPending) status = <StatusLine tone="muted">{M.saving}</StatusLine>;
  else if (verification?.verified) status = <StatusLine tone="success" detail={verification.message}>{M.savedVerified}</StatusLine>;
  else if (verification) status = <StatusLine tone="warning" detail={verification.message}>{M.savedUnverified}</StatusLine>;
  else if (sid.isPending || token.isPending) status = <StatusLine tone="muted">{M.checking}</StatusLine>;
  else if (fetchFailed) status = <StatusLine tone="warning">{M.fetchFailed}</StatusLine>;
  else if (bothExist && sid.data?.verification && !sid.data.verification.verified)
    // The last check's refusal outlives a reload: stored credentials Twilio refused are no use.
    status = <StatusLine tone="warning" detail={sid.data.verification.message}>{M.savedUnverified}</StatusLine>;
  else if (bothExist) status = <StatusLine tone="success" detail={`Account SID ${sid.data?.hint ?? ""}`}>{M.existing}</StatusLine>;
  else if (oneExists) status = <StatusLine tone="warning">{M.reenterBoth}</StatusLine>;
  else status = <StatusLine tone="muted">{M.none}</StatusLine>;

  return (
    <Card>
      <CardHeader>
        <CardTitle>Twilio Credentials</CardTitle>
        <CardDescription>
          Your phone numbers are bought and answered through your own Twilio account. Switchboard uses these credentials to buy, link and release
          numbers.
        </CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent className="grid gap-4">
          <FormField label="Account SID" error={sidError}>
            <Input
              autoComplete="off"
              spellCheck={false}
              placeholder={sid.data?.exists ? (sid.data.hint ?? MASKED_CREDENTIAL) : "ACxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}
              aria-invalid={bothMissing || Boolean(sidError) || undefined}
              {...form.register("account_sid")}
            />
          </FormField>
          <FormField label="Auth Token">
            <Input
              type="password"
              autoComplete="off"
              placeholder={token.data?.exists ? MASKED_CREDENTIAL : "Your Twilio Auth Token"}
              aria-invalid={bothMissing || undefined}
              {...form.register("auth_token")}
            />
          </FormField>
          <ErrorLine message={bothMissing ? M.bothRequired : null} />
          {status}
          <ul className="list-disc space-y-1 pl-5 text-sm text-muted-foreground">
            <li>Find both on the Twilio Console&apos;s account dashboard. Saving checks them with Twilio straight away.</li>
            <li>Both are encrypted before they are stored; the Auth Token is never shown again.</li>
          </ul>
        </CardContent>
        <CardFooter className="mt-6 flex flex-wrap items-center justify-between gap-3">
          <div className="flex gap-4 text-sm">
            <a className="inline-flex items-center gap-1 text-primary hover:underline" href="https://www.twilio.com/docs/iam/credentials/api" target="_blank" rel="noopener noreferrer">
              Twilio docs <ExternalLink className="size-3" />
            </a>
            <a className="inline-flex items-center gap-1 text-primary hover:underline" href="https://console.twilio.com/" target="_blank" rel="noopener noreferrer">
              Twilio Console <ExternalLink className="size-3" />
            </a>
          </div>
          <Button type="submit" disabled={save.isPending}>
            {save.isPending && <Loader2 className="animate-spin" />}
            {bothExist ? "Update Credentials" : "Save Credentials"}
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
