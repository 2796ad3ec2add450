import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { ACCOUNT_MESSAGES, updateNameSchema, type UpdateNameInput } from "@shared/account";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from "@/components/ui/card";
import { FormInput } from "@/components/form-input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useSession } from "@/lib/session";
import { useUpdateName } from "./use-account";

/** Profile: the name shown in the app, and the (fixed) e-mail address. */
export function ProfileCard() {
  const { data: user } = useSession();
  const update = useUpdateName();
  const form = useForm<UpdateNameInput>({ resolver: zodResolver(updateNameSchema), defaultValues: { name: user?.name ?? "" } });
  const { isDirty } = form.formState;
  useEffect(() => {
    if (user && !form.formState.isDirty) form.reset({ name: user.name });
  }, [user, form]);

  const onSubmit = form.handleSubmit(async ({ name }) => {
    try {
      const { user: saved } = await update.mutateAsync(name);
      form.reset({ name: saved.name });
      toast.success(ACCOUNT_MESSAGES.nameUpdated);
    } catch (err) {
      toastFailure("Failed to update name", err);
    }
  });

  return (
    <Card>
      <CardHeader>
        <CardTitle>Profile</CardTitle>
        <CardDescription>Signed in as {user?.email}.</CardDescription>
      </CardHeader>
      <form onSubmit={onSubmit} noValidate>
        <CardContent>
          <FormInput form={form} name="name" label="Name" autoComplete="name" />
        </CardContent>
        <CardFooter className="mt-6 justify-end">
          <Button type="submit" disabled={update.isPending || !isDirty}>
            {update.isPending ? "Saving..." : "Save Name"}
          </Button>
        </CardFooter>
      </form>
    </Card>
  );
}
