import { zodResolver } from "@hookform/resolvers/zod";
import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { renameOrganizationSchema, TEAM_MESSAGES } from "@shared/team";
import { Button } from "@/components/ui/button";
import { FormInput } from "@/components/form-input";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useRenameOrganization } from "./use-team";

/** The organisation's name, renamable by admins. */
export function OrganizationNameForm({ name }: { name: string }) {
  const rename = useRenameOrganization();
  const form = useForm<{ name: string }>({ resolver: zodResolver(renameOrganizationSchema), defaultValues: { name } });
  const { isDirty } = form.formState;
  useEffect(() => {
    if (!form.formState.isDirty) form.reset({ name });
  }, [name, form]);

  const onSubmit = form.handleSubmit(async (values) => {
    try {
      await rename.mutateAsync(values.name);
      form.reset(values);
      toast.success(TEAM_MESSAGES.organizationRenamed);
    } catch (err) {
      toastFailure(TEAM_MESSAGES.renameFailed, err);
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate aria-label="Organisation name" className="flex flex-wrap items-start gap-3">
      <div className="min-w-56 flex-1">
        <FormInput form={form} name="name" label="Organisation name" />
      </div>
      <Button type="submit" className="mt-[1.375rem]" disabled={rename.isPending || !isDirty}>
        {rename.isPending ? "Saving..." : "Rename"}
      </Button>
    </form>
  );
}
