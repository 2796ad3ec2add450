import { useId } from "react";
import { Controller, useFieldArray, useWatch } from "react-hook-form";
import {
  ANALYSIS_FIELD_TYPE_LABELS,
  ANALYSIS_FIELD_TYPES,
  ANALYSIS_MODELS,
  DEFAULT_ANALYSIS_MODEL,
  MAX_ANALYSIS_FIELDS,
  SUCCESS_SCALE_LABELS,
  SUCCESS_SCALES,
} from "@shared/analysis";
import { SelectField } from "@/components/select-field";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { AddRowFooter, RemoveRowButton } from "./row-list-controls";
import { CheckboxField, type FormSectionProps } from "./form-section";

/** A list typed as "a, b, c" (options, categories): blanks between commas are dropped. */
const toList = (text: string) => text.split(",").map((s) => s.trim()).filter(Boolean);

function ListInput({ control, name, placeholder }: { control: FormSectionProps["control"]; name: `analysis.fields.${number}.options` | "analysis.success.categories"; placeholder: string }) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <Input placeholder={placeholder} autoComplete="off" defaultValue={(field.value ?? []).join(", ")} onChange={(e) => field.onChange(toList(e.target.value))} onBlur={field.onBlur} />
      )}
    />
  );
}

/** The assistant form's Analysis section: summary, data to extract, success evaluation, model. */
export function AnalysisFields({ control, register, errors }: FormSectionProps) {
  const headingId = useId();
  const { fields, append, remove } = useFieldArray({ control, name: "analysis.fields" });
  const types = useWatch({ control, name: "analysis.fields" }) ?? [];
  const scale = useWatch({ control, name: "analysis.success.scale" });
  const e = errors.analysis;
  const listError = e?.fields?.message ?? e?.fields?.root?.message;

  return (
    <fieldset className="grid gap-3" aria-labelledby={headingId}>
      <Label id={headingId} className="text-base">
        Analysis
      </Label>
      <p className="text-sm text-muted-foreground">After each call: a summary, the facts the caller gave, and whether the call succeeded.</p>

      <CheckboxField control={control} name="analysis.summary.enabled" label="Summary" unset />
      <FormField label="Summary prompt" error={e?.summary?.prompt?.message} description="Optional: how to summarise.">
        <Input placeholder="Summarise in two sentences for a supervisor" autoComplete="off" {...register("analysis.summary.prompt")} />
      </FormField>

      <Label className="mt-2">Data to extract</Label>
      {fields.map((field, index) => {
        const fe = e?.fields?.[index];
        return (
          <div key={field.id} className="grid gap-3 rounded-md border p-3" data-testid="analysis-field">
            <div className="grid gap-3 sm:grid-cols-2">
              <FormField label="Field name" error={fe?.name?.message}>
                <Input placeholder="order_id" autoComplete="off" {...register(`analysis.fields.${index}.name`)} />
              </FormField>
              <SelectField
                control={control}
                name={`analysis.fields.${index}.type`}
                label="Type"
                error={fe?.type?.message}
                placeholder="Choose a type"
                options={ANALYSIS_FIELD_TYPES.map((t) => ({ value: t, label: ANALYSIS_FIELD_TYPE_LABELS[t] }))}
              />
            </div>
            <FormField label="What to look for" error={fe?.description?.message}>
              <Input placeholder="The order number the caller gives" autoComplete="off" {...register(`analysis.fields.${index}.description`)} />
            </FormField>
            {types[index]?.type === "enum" && (
              <FormField label="Options" error={fe?.options?.message ?? fe?.options?.root?.message} description="Separated by commas.">
                <ListInput control={control} name={`analysis.fields.${index}.options`} placeholder="status, refund, other" />
              </FormField>
            )}
            <div className="flex flex-wrap items-center justify-between gap-3">
              <Controller
                control={control}
                name={`analysis.fields.${index}.required`}
                render={({ field: f }) => (
                  <div className="flex items-center gap-2">
                    <Checkbox id={`${field.id}-required`} checked={f.value ?? false} onCheckedChange={(v) => f.onChange(v === true)} onBlur={f.onBlur} />
                    <Label htmlFor={`${field.id}-required`}>Required</Label>
                  </div>
                )}
              />
              <RemoveRowButton label="Remove field" onClick={() => remove(index)} />
            </div>
          </div>
        );
      })}
      <AddRowFooter
        error={listError}
        count={fields.length}
        max={MAX_ANALYSIS_FIELDS}
        label="Add field"
        onAdd={() => append({ name: "", type: "string", description: "", required: false })}
      />

      <FormField label="Success rubric" error={e?.success?.rubric?.message} description="When does a call count as a success?">
        <Textarea rows={3} placeholder="The call succeeded if the caller's order status was given..." {...register("analysis.success.rubric")} />
      </FormField>
      <div className="grid gap-5 sm:grid-cols-2">
        <SelectField
          control={control}
          name="analysis.success.scale"
          label="Score as"
          error={e?.success?.scale?.message}
          placeholder="Choose a scale"
          options={SUCCESS_SCALES.map((s) => ({ value: s, label: SUCCESS_SCALE_LABELS[s] }))}
        />
        <SelectField
          control={control}
          name="analysis.model"
          label="Analysis model"
          error={e?.model?.message}
          placeholder="Choose a model"
          options={ANALYSIS_MODELS.map((m) => ({ value: m, label: m === DEFAULT_ANALYSIS_MODEL ? `${m} (default)` : m }))}
        />
      </div>
      {scale === "categories" && (
        <FormField label="Categories" error={e?.success?.categories?.message ?? e?.success?.categories?.root?.message} description="Separated by commas.">
          <ListInput control={control} name="analysis.success.categories" placeholder="resolved, escalated, unresolved" />
        </FormField>
      )}
    </fieldset>
  );
}
