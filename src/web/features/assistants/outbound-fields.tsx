import { useId } from "react";
import { Controller, useWatch } from "react-hook-form";
import { OUTBOUND_FIELD_TEXTS as T, VOICEMAIL_TEXTS } from "@shared/assistants";
import { BUILT_IN_VARIABLES, findPlaceholders } from "@shared/variables";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { CheckboxField, type FormSectionProps } from "./form-section";

const OFF = "off";
type Choice = typeof OFF | "hang_up" | "leave_message";

/** The `{{placeholders}}` the first message and instructions hold now, and the built-ins every call has. */
export function PlaceholdersHint({ control }: { control: FormSectionProps["control"] }) {
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
export function OutboundFields({ control, register, errors }: FormSectionProps) {
  const headingId = useId();
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
      <CheckboxField control={control} name="allow_do_not_call" label={T.allowDoNotCall} unset={false} />
    </fieldset>
  );
}
