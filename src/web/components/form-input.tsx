import type { ComponentProps, ReactNode } from "react";
import type { FieldValues, Path, UseFormReturn } from "react-hook-form";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";

type FormInputProps<T extends FieldValues, C, R> = Omit<ComponentProps<typeof Input>, "name" | "form"> & {
  form: UseFormReturn<T, C, R>;
  name: Path<T> & keyof T;
  label: ReactNode;
  description?: ReactNode;
};

/** A labelled text input bound to a react-hook-form field, showing that field's message. */
export function FormInput<T extends FieldValues, C, R>({ form, name, label, description, ...input }: FormInputProps<T, C, R>) {
  const error = form.formState.errors[name]?.message;
  return (
    <FormField label={label} error={typeof error === "string" ? error : undefined} description={description}>
      <Input {...input} {...form.register(name)} />
    </FormField>
  );
}
