import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { Link, useLocation, useNavigate, useSearchParams } from "react-router";
import { loginSchema, type LoginInput, type LoginNotice } from "@shared/auth";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { toast } from "@/components/ui/sonner";
import { AuthCard } from "./auth-card";
import { signIn, useAccountOptions } from "@/lib/session";
import { safeNextPath, withNext } from "@/lib/next-path";
import { queryKeys } from "@/lib/query-keys";

const FALLBACK = "An unexpected error occurred. Please try again.";

export function LoginPage() {
  const navigate = useNavigate();
  // Why the app sent the user here (a live page whose session ended), if it did.
  const notice = (useLocation().state as Partial<LoginNotice> | null)?.notice;
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  // Back to where the user came from (an invitation link), kept through the sign-up link too.
  const next = safeNextPath(params.get("next"));
  const options = useAccountOptions();
  // A closed server offers sign-up only to someone arriving with an invitation.
  const offerSignup = options.data !== undefined && (options.data.signup !== "invite" || next !== null);
  const form = useForm<LoginInput>({ resolver: zodResolver(loginSchema), defaultValues: { email: "", password: "" } });
  const { isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ email, password }) => {
    try {
      const { user } = await signIn(email, password);
      queryClient.setQueryData(queryKeys.session, user);
      // An earlier attempt's "Login Failed" must not follow the user into the app.
      toast.dismiss();
      navigate(next ?? "/assistants");
    } catch (err) {
      toast.error("Login Failed", { description: err instanceof Error && err.message ? err.message : FALLBACK });
    }
  });

  return (
    <AuthCard
      title="Log in"
      description="Welcome back. Log in to manage your voice assistants."
      footer={
        offerSignup ? (
          <span>
            Don&apos;t have an account?{" "}
            <Link to={withNext("/signup", next)} className="font-medium text-primary underline-offset-4 hover:underline">
              Sign up
            </Link>
          </span>
        ) : null
      }
    >
      <form onSubmit={onSubmit} noValidate className="grid gap-4">
        {notice && (
          <p role="alert" className="rounded-md border border-warning/40 bg-warning/10 p-3 text-sm">
            {notice}
          </p>
        )}
        <FormInput form={form} name="email" label="Email" type="email" autoComplete="email" placeholder="you@company.com" />
        <FormInput form={form} name="password" label="Password" type="password" autoComplete="current-password" />
        <Link to="/forgot-password" className="-mt-2 justify-self-end text-sm font-medium text-primary underline-offset-4 hover:underline">
          Forgot password?
        </Link>
        <Button type="submit" disabled={isSubmitting} className="w-full">
          {isSubmitting ? "Logging in..." : "Log In"}
        </Button>
      </form>
    </AuthCard>
  );
}
