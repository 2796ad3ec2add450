import type { ReactNode } from "react";
import { Controller, type Control, type FieldPath, type FieldValues } from "react-hook-form";
import { FormField } from "@/components/ui/form-field";
import { OptionSelect } from "@/components/option-select";

export interface SelectOption {
  value: string;
  label: ReactNode;
  disabled?: boolean;
}

interface LabelledSelectProps {
  label: string;
  error?: string;
  description?: ReactNode;
  placeholder: string;
  options: readonly SelectOption[];
  disabled?: boolean;
  /** "" (nothing chosen yet) shows the placeholder. */
  value: string;
  onValueChange: (value: string) => void;
  onBlur?: () => void;
  triggerClassName?: string;
}

/** A labelled select over plain state: the one markup of every labelled select in the app's forms and dialogs. */
export function LabelledSelect({ label, error, description, triggerClassName, ...select }: LabelledSelectProps) {
  return (
    <FormField label={label} error={error} description={description}>
      {(props) => <OptionSelect {...props} {...select} className={triggerClassName} />}
    </FormField>
  );
}

/**
 * A labelled select bound to one field of a react-hook-form form: the assistant, tool and phone
 * number forms choose from lists this way, so the label, error and blur wiring live once.
 */
export function SelectField<T extends FieldValues, C, V extends FieldValues = T>({
  control,
  name,
  ...shown
}: Pick<LabelledSelectProps, "label" | "error" | "description" | "placeholder" | "options" | "disabled"> & {
  /** The form's control (any context and transformed values: the field only reads and sets its value). */
  control: Control<T, C, V>;
  name: FieldPath<T>;
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => <LabelledSelect {...shown} value={field.value ?? ""} onValueChange={field.onChange} onBlur={field.onBlur} />}
    />
  );
}
