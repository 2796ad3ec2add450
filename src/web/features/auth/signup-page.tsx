import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ACCOUNT_MESSAGES } from "@shared/account";
import { fullName, signupSchema, type SignupInput } from "@shared/auth";
import { TEAM_MESSAGES } from "@shared/team";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { toast } from "@/components/ui/sonner";
import { AuthCard } from "./auth-card";
import { signUp, useAccountOptions } from "@/lib/session";
import { queryKeys } from "@/lib/query-keys";
import { safeNextPath, withNext } from "@/lib/next-path";
import { ErrorLine } from "@/components/form-dialog";

const FALLBACK = "An unexpected error occurred. Please try again.";

export function SignupPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  // Only a server with SMTP sends a confirmation e-mail; otherwise the account works at once.
  const options = useAccountOptions();
  const [params] = useSearchParams();
  // An invitation link sends people here with `next` (the link itself), kept through the login.
  const next = safeNextPath(params.get("next"));
  // The server refuses anyway; an invite-only server says so at once unless an invitation brought them.
  const closed = options.data?.signup === "invite" && next === null;
  const form = useForm<SignupInput>({
    resolver: zodResolver(signupSchema),
    defaultValues: { firstName: "", lastName: "", email: "", password: "", confirmPassword: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      const created = await signUp({ email: values.email, password: values.password, fullName: fullName(values), callbackURL: withNext("/login", next) });
      const mailed = options.data?.email ?? false;
      toast.success("Success", { description: mailed ? ACCOUNT_MESSAGES.signupConfirmEmail : ACCOUNT_MESSAGES.signupReady });
      // Without e-mail confirmation sign-up has signed the user in: straight on to the app (or the
      // invitation that brought them); with it, the login page waits for the confirmed address.
      if (mailed) navigate(withNext("/login", next));
      else {
        queryClient.setQueryData(queryKeys.session, created.user);
        navigate(next ?? "/assistants");
      }
    } catch (err) {
      // The server's own words: a closed server's refusal (invitation only, other domains) included.
      const message = err instanceof Error && err.message ? err.message : FALLBACK;
      form.setError("root", { message });
      toast.error("Sign Up Failed", { description: message });
    }
  });

  return (
    <AuthCard
      title="Create an account"
      description="Build, test and deploy AI voice assistants for your contact center."
      footer={
        <span>
          Already have an account?{" "}
          <Link to={withNext("/login", next)} className="font-medium text-primary underline-offset-4 hover:underline">
            Log In
          </Link>
        </span>
      }
    >
      {closed ? (
        <p role="alert" className="text-sm text-muted-foreground" data-testid="signup-closed">
          {TEAM_MESSAGES.signupClosed}
        </p>
      ) : (
        <form onSubmit={onSubmit} noValidate className="grid gap-4">
          <div className="grid gap-4 sm:grid-cols-2">
            <FormInput form={form} name="firstName" label="First name" autoComplete="given-name" />
            <FormInput form={form} name="lastName" label="Last name" autoComplete="family-name" />
          </div>
          <FormInput form={form} name="email" label="Email" type="email" autoComplete="email" placeholder="you@company.com" />
          <FormInput form={form} name="password" label="Password" type="password" autoComplete="new-password" />
          <FormInput form={form} name="confirmPassword" label="Confirm password" type="password" autoComplete="new-password" />
          <Button type="submit" disabled={isSubmitting} className="w-full">
            {isSubmitting ? "Creating Account..." : "Create Account"}
          </Button>
          <ErrorLine message={errors.root?.message} />
        </form>
      )}
    </AuthCard>
  );
}
