import { useId } from "react";
import { Controller, type Control, type FieldErrors, type UseFormRegister } from "react-hook-form";
import type { AssistantFormValues, AssistantInput } from "@shared/assistants";
import { Checkbox } from "@/components/ui/checkbox";
import { Label } from "@/components/ui/label";

/** What each section of the assistant form is handed: the form's control, register and errors. */
export interface FormSectionProps {
  control: Control<AssistantFormValues, unknown, AssistantInput>;
  register: UseFormRegister<AssistantFormValues>;
  errors: FieldErrors<AssistantFormValues>;
}

type YesNoField = "allow_end_call" | "keypad_input" | "allow_do_not_call" | "analysis.summary.enabled";

/** A labelled checkbox bound to one yes/no field of the form; `unset` is what it shows before the field has a value. */
export function CheckboxField({ control, name, label, unset }: { control: FormSectionProps["control"]; name: YesNoField; label: string; unset: boolean }) {
  const id = useId();
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <div className="flex items-center gap-2">
          <Checkbox id={id} checked={field.value ?? unset} onCheckedChange={(v) => field.onChange(v === true)} onBlur={field.onBlur} />
          <Label htmlFor={id}>{label}</Label>
        </div>
      )}
    />
  );
}
