import { useId } from "react";
import { useFieldArray } from "react-hook-form";
import { MAX_TRANSFER_DESTINATIONS } from "@shared/assistants";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { AddRowFooter, RemoveRowButton } from "./row-list-controls";
import { CheckboxField, type FormSectionProps } from "./form-section";

/** Transfer destinations and the two call-control switches of the assistant form. */
export function HandoffFields({ control, register, errors }: FormSectionProps) {
  const headingId = useId();
  const { fields, append, remove } = useFieldArray({ control, name: "transfer_destinations" });
  const listError = errors.transfer_destinations?.message ?? errors.transfer_destinations?.root?.message;

  return (
    <fieldset className="grid gap-3" aria-labelledby={headingId}>
      <Label id={headingId} className="text-base">
        Transfer destinations
      </Label>
      <p className="text-sm text-muted-foreground">People the assistant may hand a phone call to, with a spoken briefing.</p>
      {fields.map((field, index) => {
        const e = errors.transfer_destinations?.[index];
        return (
          <div key={field.id} className="grid gap-3 rounded-md border p-3" data-testid="transfer-destination">
            <div className="grid gap-3 sm:grid-cols-2">
              <FormField label="Label" error={e?.label?.message}>
                <Input placeholder="e.g. Billing team" autoComplete="off" {...register(`transfer_destinations.${index}.label`)} />
              </FormField>
              <FormField label="Phone number or SIP address" error={e?.phone_number?.message}>
                <Input placeholder="+442071234567 or sip:queue@pbx.example.com" autoComplete="off" {...register(`transfer_destinations.${index}.phone_number`)} />
              </FormField>
            </div>
            <FormField label="When to use" error={e?.when_to_use?.message}>
              <Input placeholder="When the caller disputes a charge" autoComplete="off" {...register(`transfer_destinations.${index}.when_to_use`)} />
            </FormField>
            <div>
              <RemoveRowButton label="Remove destination" onClick={() => remove(index)} />
            </div>
          </div>
        );
      })}
      <AddRowFooter
        error={listError}
        count={fields.length}
        max={MAX_TRANSFER_DESTINATIONS}
        label="Add transfer destination"
        onAdd={() => append({ label: "", phone_number: "", when_to_use: "" })}
      />

      <CheckboxField control={control} name="allow_end_call" label="Allow the assistant to end the call" unset />
      <CheckboxField control={control} name="keypad_input" label="Keypad input" unset />
    </fieldset>
  );
}
