import { zodResolver } from "@hookform/resolvers/zod";
import { useId, useState, useEffect } from "react";
import { useForm, type FieldErrors } from "react-hook-form";
import type { z } from "zod";
import {
  HTTP_METHODS,
  PARAMETER_FORMATS,
  TOOL_MESSAGES,
  TOOL_TYPES,
  toolFormSchema,
  type Tool,
  type ToolFormValues,
  type ToolInput,
} from "@shared/tools";
import { SelectField } from "@/components/select-field";
import { SheetFormFooter } from "@/components/sheet-form-footer";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { FormInput } from "@/components/form-input";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { toast } from "@/components/ui/sonner";
import { Textarea } from "@/components/ui/textarea";
import { prettyJson } from "@/lib/format";
import { FORMAT_LABELS, isEmptyJson, orderedSchema, TYPE_LABELS } from "./tool-format";

type ToolFormOutput = z.output<typeof toolFormSchema>;

interface ToolFormProps {
  /** The tool being edited; absent when creating. */
  tool?: Tool;
  /** `api_key`: a new key, "" to keep the stored one, null to remove it. */
  onSubmit: (values: ToolInput) => Promise<void>;
  onCancel: () => void;
  /** Told whether the form holds unsaved changes (false again when it goes away). */
  onDirtyChange?: (dirty: boolean) => void;
}

const EXAMPLES = {
  http_headers: `{\n  "X-Api-Version": "2024-06-01"\n}`,
  parameters: `{\n  "type": "object",\n  "properties": {\n    "order_id": {\n      "type": "string",\n      "description": "The order number"\n    }\n  },\n  "required": ["order_id"]\n}`,
  request_body: `{\n  "source": "voice-assistant"\n}`,
};

const REQUIRED: (keyof ToolFormValues)[] = ["name", "end_point_url", "type", "http_method", "parameter_format"];

/** A stored JSON field as the textarea shows it: blank when there is nothing in it. */
function jsonText(value: unknown, isEmpty = isEmptyJson(value)): string {
  return isEmpty ? "" : prettyJson(value);
}

function parametersText(parameters: Tool["parameters"]): string {
  const properties = parameters.properties as Record<string, unknown> | undefined;
  const required = parameters.required as unknown[] | undefined;
  const onlyDefaults =
    Object.keys(parameters).every((k) => ["type", "properties", "required"].includes(k)) &&
    isEmptyJson(properties) &&
    isEmptyJson(required);
  return jsonText(orderedSchema(parameters), onlyDefaults);
}

const JSON_TEXTAREA = "min-h-28 font-mono text-[13px] leading-relaxed md:text-[13px]";

/** The Create Tool (API tab) and Edit Tool form, validated with the API's own rules. */
export function ToolForm({ tool, onSubmit, onCancel, onDirtyChange }: ToolFormProps) {
  const editing = tool !== undefined;
  const removeKeyId = useId();
  const [removeKey, setRemoveKey] = useState(false);
  const form = useForm<ToolFormValues, unknown, ToolFormOutput>({
    resolver: zodResolver(toolFormSchema),
    defaultValues: {
      name: tool?.name ?? "",
      description: tool?.description ?? "",
      type: (tool?.type as ToolFormValues["type"]) ?? "API",
      http_method: (tool?.http_method as ToolFormValues["http_method"]) ?? "GET",
      parameter_format: (tool?.parameter_format as ToolFormValues["parameter_format"]) ?? "standard",
      end_point_url: tool?.end_point_url ?? "",
      api_key: "",
      http_headers: tool ? jsonText(tool.http_headers) : "",
      parameters: tool ? parametersText(tool.parameters) : "",
      request_body: tool ? jsonText(tool.request_body) : "",
    },
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const unsaved = isDirty || removeKey;
  useEffect(() => onDirtyChange?.(unsaved), [unsaved, onDirtyChange]);
  useEffect(() => () => onDirtyChange?.(false), [onDirtyChange]);

  const submit = form.handleSubmit(
    (values) => onSubmit({ ...values, api_key: removeKey ? null : (values.api_key ?? "") }),
    (invalid: FieldErrors<ToolFormValues>) => {
      const values = form.getValues();
      const missing = REQUIRED.some((field) => invalid[field] && String(values[field] ?? "").trim() === "");
      if (missing) toast.error(TOOL_MESSAGES.missingRequiredFields);
    },
  );

  const selectField = <K extends "type" | "http_method" | "parameter_format">(
    name: K,
    label: string,
    options: readonly string[],
    labels?: Record<string, string>,
  ) => (
    <SelectField
      control={form.control}
      name={name}
      label={label}
      error={errors[name]?.message}
      placeholder={`Select ${label.toLowerCase()}`}
      options={options.map((option) => ({ value: option, label: labels?.[option] ?? option }))}
    />
  );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate className="flex flex-1 flex-col" aria-label={editing ? "Edit tool" : "Create tool"}>
      <div className="grid gap-5 px-6 pb-6">
        <FormInput form={form} name="name" label="Name" placeholder="e.g. Order Status Lookup" autoComplete="off" />
        <FormField label="Description" error={errors.description?.message} description="Tells the assistant what the tool does and when to use it.">
          <Textarea rows={2} className="min-h-16" placeholder="Looks up the status of an order by its number" {...form.register("description")} />
        </FormField>

        <div className="grid gap-5 sm:grid-cols-3">
          {selectField("type", "Type", TOOL_TYPES, TYPE_LABELS)}
          {selectField("http_method", "HTTP Method", HTTP_METHODS)}
          {selectField("parameter_format", "Parameter Format", PARAMETER_FORMATS, FORMAT_LABELS)}
        </div>

        <FormInput form={form} name="end_point_url" label="Endpoint URL" type="url" inputMode="url" placeholder="https://api.example.com/orders" autoComplete="off" className="font-mono text-[13px] md:text-[13px]" />

        <div className="grid gap-2">
          <FormField
            label="API Key"
            error={errors.api_key?.message}
            description={
              editing && tool.api_key_set
                ? `A key is saved (${tool.api_key_hint ?? "hidden"}). Leave this blank to keep it.`
                : "Sent as Authorization: Bearer <key> unless a header sets Authorization."
            }
          >
            <Input
              type="password"
              autoComplete="new-password"
              placeholder={editing && tool.api_key_set ? "Leave blank to keep the current key" : "Optional"}
              disabled={removeKey}
              {...form.register("api_key")}
            />
          </FormField>
          {editing && tool.api_key_set && (
            <div className="flex items-center gap-2">
              <Checkbox id={removeKeyId} checked={removeKey} onCheckedChange={(checked) => setRemoveKey(checked === true)} />
              <Label htmlFor={removeKeyId} className="font-normal">
                Remove key
              </Label>
            </div>
          )}
        </div>

        <FormField
          label="Headers (JSON)"
          error={errors.http_headers?.message}
          description={
            editing && Object.keys(tool.http_headers).length > 0
              ? "Sent with every request. Stored values are shown masked (••••): leave one as it is to keep it, or type a new value."
              : "Sent with every request."
          }
        >
          <Textarea rows={3} spellCheck={false} className={JSON_TEXTAREA} placeholder={EXAMPLES.http_headers} {...form.register("http_headers")} />
        </FormField>
        <FormField label="Parameters (JSON Schema)" error={errors.parameters?.message} description="The arguments the assistant fills in when it calls the tool.">
          <Textarea rows={8} spellCheck={false} className={JSON_TEXTAREA} placeholder={EXAMPLES.parameters} {...form.register("parameters")} />
        </FormField>
        <FormField label="Request Body (JSON)" error={errors.request_body?.message} description="For POST and PUT: fixed values sent with the parameters.">
          <Textarea rows={3} spellCheck={false} className={JSON_TEXTAREA} placeholder={EXAMPLES.request_body} {...form.register("request_body")} />
        </FormField>
      </div>

      <SheetFormFooter
        onCancel={onCancel}
        submitting={isSubmitting}
        submitLabel={editing ? (isSubmitting ? "Saving..." : "Save Changes") : isSubmitting ? "Creating..." : "Create Tool"}
      />
    </form>
  );
}
