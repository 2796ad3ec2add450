import { useId } from "react";
import { Controller, useWatch, type Control, type FieldErrors, type UseFormRegister } from "react-hook-form";
import { OUTBOUND_FIELD_TEXTS as T, VOICEMAIL_TEXTS, type AssistantFormValues, type AssistantInput } from "@shared/assistants";
import { BUILT_IN_VARIABLES, findPlaceholders } from "@shared/variables";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";

interface OutboundFieldsProps {
  control: Control<AssistantFormValues, unknown, AssistantInput>;
  register: UseFormRegister<AssistantFormValues>;
  errors: FieldErrors<AssistantFormValues>;
}

const OFF = "off";
type Choice = typeof OFF | "hang_up" | "leave_message";

/** The `{{placeholders}}` the first message and instructions hold now, and the built-ins every call has. */
export function PlaceholdersHint({ control }: { control: OutboundFieldsProps["control"] }) {
  const [first, instructions] = useWatch({ control, name: ["first_message", "instructions"] });
  const found = findPlaceholders(first, instructions);
  return (
    <p className="text-sm text-muted-foreground" data-testid="placeholders-hint">
      {found.length === 0 ? T.placeholdersNone : `${T.placeholdersFound} ${found.map((n) => `{{${n}}}`).join(", ")}.`} {T.builtIns}{" "}
      {BUILT_IN_VARIABLES.map((n) => `{{${n}}}`).join(", ")}.
    </p>
  );
}

/** Time zone of {{now}}, what to do when a machine answers, and the do-not-call function. */
export function OutboundFields({ control, register, errors }: OutboundFieldsProps) {
  const headingId = useId();
  const dncId = useId();
  const voicemail = useWatch({ control, name: "voicemail" });
  return (
    <fieldset className="grid gap-3" aria-labelledby={headingId}>
      <Label id={headingId} className="text-base">
        {T.heading}
      </Label>
      <FormField label={T.timezone} description={T.timezoneHint} error={errors.timezone?.message}>
        <Input autoComplete="off" placeholder="UTC" {...register("timezone")} />
      </FormField>
      <Controller
        control={control}
        name="voicemail"
        render={({ field }) => (
          <FormField label={VOICEMAIL_TEXTS.label}>
            {(p) => (
              <Select
                value={field.value?.action ?? OFF}
                onValueChange={(v: Choice) => field.onChange(v === OFF ? null : { action: v, message: field.value?.message ?? "" })}
              >
                <SelectTrigger {...p} className="w-full">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  <SelectItem value={OFF}>{VOICEMAIL_TEXTS.off}</SelectItem>
                  <SelectItem value="hang_up">{VOICEMAIL_TEXTS.hangUp}</SelectItem>
                  <SelectItem value="leave_message">{VOICEMAIL_TEXTS.leaveMessage}</SelectItem>
                </SelectContent>
              </Select>
            )}
          </FormField>
        )}
      />
      {voicemail?.action === "leave_message" && (
        <FormField label={T.voicemailMessage} description={T.voicemailHint} error={errors.voicemail?.message?.message ?? errors.voicemail?.root?.message}>
          <Textarea rows={2} {...register("voicemail.message")} />
        </FormField>
      )}
      <Controller
        control={control}
        name="allow_do_not_call"
        render={({ field }) => (
          <div className="flex items-center gap-2">
            <Checkbox id={dncId} checked={field.value ?? false} onCheckedChange={(v) => field.onChange(v === true)} onBlur={field.onBlur} />
            <Label htmlFor={dncId}>{T.allowDoNotCall}</Label>
          </div>
        )}
      />
    </fieldset>
  );
}
