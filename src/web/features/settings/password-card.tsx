import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { ACCOUNT_MESSAGES, changePasswordFormSchema, type ChangePasswordForm } from "@shared/account";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormInput } from "@/components/form-input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { useChangePassword } from "./use-account";

const EMPTY: ChangePasswordForm = { currentPassword: "", newPassword: "", confirmPassword: "" };

/** Change password: the current one proves it is the owner; other devices are signed out. */
export function PasswordCard() {
  const change = useChangePassword();
  const form = useForm<ChangePasswordForm>({ resolver: zodResolver(changePasswordFormSchema), defaultValues: EMPTY });

  const onSubmit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await change.mutateAsync({ currentPassword, newPassword });
      form.reset(EMPTY);
      toast.success(ACCOUNT_MESSAGES.passwordChanged, { description: ACCOUNT_MESSAGES.passwordChangedDescription });
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_password") form.setError("currentPassword", { message: err.message });
      else toastFailure("Failed to change password", err);
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Password</CardTitle>
        <CardDescription>Changing it signs you out everywhere else.</CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent className="grid gap-4">
          <FormInput form={form} name="currentPassword" label="Current password" type="password" autoComplete="current-password" />
          <div className="grid gap-4 sm:grid-cols-2">
            <FormInput form={form} name="newPassword" label="New password" type="password" autoComplete="new-password" />
            <FormInput form={form} name="confirmPassword" label="Confirm new password" type="password" autoComplete="new-password" />
          </div>
        </CardContent>
        <CardFooter className="mt-6 justify-end">
          <Button type="submit" disabled={change.isPending}>
            {change.isPending ? "Changing..." : "Change Password"}
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
