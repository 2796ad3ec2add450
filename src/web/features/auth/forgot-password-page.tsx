import { zodResolver } from "@hookform/resolvers/zod";
import { MailCheck } from "lucide-react";
import { useState } from "react";
import { useForm } from "react-hook-form";
import { Link } from "react-router";
import { ACCOUNT_MESSAGES, forgotPasswordSchema, RESET_PASSWORD_PATH, type ForgotPasswordInput } from "@shared/account";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/sonner";
import { api } from "@/lib/api";
import { AuthCard } from "./auth-card";
import { useAccountOptions } from "@/lib/session";

const backToLogin = (
  <Link to="/login" className="font-medium text-primary underline-offset-4 hover:underline">
    Back to Log In
  </Link>
);

/** /forgot-password: a reset link by e-mail when SMTP is set up; otherwise, who can help. */
export function ForgotPasswordPage() {
  const options = useAccountOptions();
  const [sentTo, setSentTo] = useState<string | null>(null);
  const form = useForm<ForgotPasswordInput>({ resolver: zodResolver(forgotPasswordSchema), defaultValues: { email: "" } });
  const { isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email }) => {
    try {
      // The server answers the same whether or not the address has an account.
      await api("/api/auth/request-password-reset", { body: { email, redirectTo: RESET_PASSWORD_PATH } });
      setSentTo(email);
    } catch (err) {
      toast.error("Error", { description: err instanceof Error ? err.message : "An error occurred. Please try again." });
    }
  });

  let body;
  if (options.isPending) body = <Spinner className="mx-auto" />;
  else if (!options.data?.email) body = <p role="status">{ACCOUNT_MESSAGES.resetUnavailable}</p>;
  else if (sentTo)
    body = (
      <p role="status" className="flex gap-3">
        <MailCheck className="size-5 shrink-0 text-success" aria-hidden />
        {ACCOUNT_MESSAGES.resetEmailSent}
      </p>
    );
  else
    body = (
      <form onSubmit={onSubmit} noValidate className="grid gap-4">
        <FormInput form={form} name="email" label="Email" type="email" autoComplete="email" placeholder="you@company.com" />
        <Button type="submit" disabled={isSubmitting} className="w-full">
          {isSubmitting ? "Sending..." : "Send Reset Link"}
        </Button>
      </form>
    );

  return (
    <AuthCard title="Forgot password?" description="Enter the e-mail address of your account and we will send you a link to choose a new password." footer={backToLogin}>
      {body}
    </AuthCard>
  );
}
