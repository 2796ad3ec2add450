import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ACCOUNT_MESSAGES, resetPasswordFormSchema, type ResetPasswordForm } from "@shared/account";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { toast } from "@/components/ui/sonner";
import { api } from "@/lib/api";
import { AuthCard } from "./auth-card";

/** /reset-password?token=…: where the e-mailed link lands (via /api/auth/reset-password/<token>). */
export function ResetPasswordPage() {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const token = params.get("error") ? null : params.get("token");
  const form = useForm<ResetPasswordForm>({ resolver: zodResolver(resetPasswordFormSchema), defaultValues: { newPassword: "", confirmPassword: "" } });
  const { isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ newPassword }) => {
    try {
      await api("/api/auth/reset-password", { body: { token, newPassword } });
      toast.success("Password reset", { description: ACCOUNT_MESSAGES.resetDone });
      navigate("/login", { replace: true });
    } catch (err) {
      const invalid = err instanceof Error && /token/i.test(err.message);
      toast.error("Password reset failed", { description: invalid ? ACCOUNT_MESSAGES.resetLinkInvalid : err instanceof Error ? err.message : undefined });
    }
  });

  return (
    <AuthCard
      title="Choose a new password"
      description="Your other devices will be signed out."
      footer={
        <Link to="/forgot-password" className="font-medium text-primary underline-offset-4 hover:underline">
          Ask for a new link
        </Link>
      }
    >
      {token ? (
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <FormInput form={form} name="newPassword" label="New password" type="password" autoComplete="new-password" />
          <FormInput form={form} name="confirmPassword" label="Confirm new password" type="password" autoComplete="new-password" />
          <Button type="submit" disabled={isSubmitting} className="w-full">
            {isSubmitting ? "Resetting..." : "Reset Password"}
          </Button>
        </form>
      ) : (
        <p role="alert">{ACCOUNT_MESSAGES.resetLinkInvalid}</p>
      )}
    </AuthCard>
  );
}
