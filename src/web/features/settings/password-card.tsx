import { zodResolver } from "@hookform/resolvers/zod";
import { useForm } from "react-hook-form";
import { ACCOUNT_MESSAGES, changePasswordFormSchema, type ChangePasswordForm } from "@shared/account";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { toast } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { useChangePassword } from "./use-account";

const EMPTY: ChangePasswordForm = { currentPassword: "", newPassword: "", confirmPassword: "" };

/** Change password: the current one proves it is the owner; other devices are signed out. */
export function PasswordCard() {
  const change = useChangePassword();
  const form = useForm<ChangePasswordForm>({ resolver: zodResolver(changePasswordFormSchema), defaultValues: EMPTY });
  const { errors } = form.formState;

  const onSubmit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    try {
      await change.mutateAsync({ currentPassword, newPassword });
      form.reset(EMPTY);
      toast.success(ACCOUNT_MESSAGES.passwordChanged, { description: ACCOUNT_MESSAGES.passwordChangedDescription });
    } catch (err) {
      if (err instanceof ApiError && err.code === "invalid_password") form.setError("currentPassword", { message: err.message });
      else toast.error("Failed to change password", { description: err instanceof Error ? err.message : undefined });
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
          <FormField label="Current password" error={errors.currentPassword?.message}>
            <Input type="password" autoComplete="current-password" {...form.register("currentPassword")} />
          </FormField>
          <div className="grid gap-4 sm:grid-cols-2">
            <FormField label="New password" error={errors.newPassword?.message}>
              <Input type="password" autoComplete="new-password" {...form.register("newPassword")} />
            </FormField>
            <FormField label="Confirm new password" error={errors.confirmPassword?.message}>
              <Input type="password" autoComplete="new-password" {...form.register("confirmPassword")} />
            </FormField>
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
