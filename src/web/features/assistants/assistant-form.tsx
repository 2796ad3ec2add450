import { VERSION_MESSAGES } from "@shared/versions";
import { useDraftState } from "./use-versions";
import { zodResolver } from "@hookform/resolvers/zod";
import { useId, useEffect } from "react";
import { Controller, useForm } from "react-hook-form";
import {
  ASSISTANT_VOICES,
  DEFAULT_TIMEZONE,
  assistantInputSchema,
  type Assistant,
  type AssistantFormValues,
  type AssistantInput,
} from "@shared/assistants";
import { DEFAULT_ANALYSIS_SETTINGS } from "@shared/analysis";
import { DEFAULT_ASSISTANT_KNOWLEDGE } from "@shared/knowledge";
import { DEFAULT_VOICE_ENGINE } from "@shared/providers";
import { SelectField } from "@/components/select-field";
import { SheetFormFooter } from "@/components/sheet-form-footer";
import { FormField } from "@/components/ui/form-field";
import { FormInput } from "@/components/form-input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { AnalysisFields } from "./analysis-fields";
import { HandoffFields } from "./handoff-fields";
import { KnowledgeFields } from "./knowledge-fields";
import { OutboundFields, PlaceholdersHint } from "./outbound-fields";
import { ToolPicker } from "./tool-picker";
import { VoiceEngineFields } from "./voice-engine-fields";

interface AssistantFormProps {
  /** The assistant being edited; absent when creating. */
  assistant?: Assistant;
  defaultModel: string;
  models: string[];
  onSubmit: (values: AssistantInput) => Promise<void>;
  onCancel: () => void;
  /** Told whether the form holds unsaved changes (false again when it goes away). */
  onDirtyChange?: (dirty: boolean) => void;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The Create Assistant and Edit Assistant form: same fields, validated with the API's schema. */
export function AssistantForm({ assistant, defaultModel, models, onSubmit, onCancel, onDirtyChange }: AssistantFormProps) {
  const editing = assistant !== undefined;
  // Once a version is published, saving changes only the draft: the button says so.
  const published = useDraftState(assistant?.id ?? "")?.live_version != null;
  const toolsLabelId = useId();
  const form = useForm<AssistantFormValues, unknown, AssistantInput>({
    resolver: zodResolver(assistantInputSchema),
    defaultValues: {
      name: assistant?.name ?? "",
      description: assistant?.description ?? "",
      first_message: assistant?.first_message ?? "",
      instructions: assistant?.instructions ?? "",
      tool_ids: assistant?.tool_ids ?? [],
      voice: (assistant?.voice as AssistantFormValues["voice"]) ?? "marin",
      model: assistant?.model ?? defaultModel,
      transfer_destinations: assistant?.transfer_destinations ?? [],
      allow_end_call: assistant?.allow_end_call ?? true,
      keypad_input: assistant?.keypad_input ?? true,
      // Kept on every save: a form without them would put the defaults back.
      timezone: assistant?.timezone ?? DEFAULT_TIMEZONE,
      voicemail: assistant?.voicemail ?? null,
      allow_do_not_call: assistant?.allow_do_not_call ?? false,
      analysis: assistant?.analysis ?? DEFAULT_ANALYSIS_SETTINGS,
      knowledge_base_ids: assistant?.knowledge_base_ids ?? [],
      knowledge: assistant?.knowledge ?? DEFAULT_ASSISTANT_KNOWLEDGE,
      voice_engine: assistant?.voice_engine ?? DEFAULT_VOICE_ENGINE,
    },
  });
  const { errors, isSubmitting, isDirty } = form.formState;
  const unsaved = isDirty;
  useEffect(() => onDirtyChange?.(unsaved), [unsaved, onDirtyChange]);
  useEffect(() => () => onDirtyChange?.(false), [onDirtyChange]);
  // An assistant saved with a model no longer offered keeps it as a choice.
  const modelChoices = assistant && !models.includes(assistant.model) ? [...models, assistant.model] : models;
  const voiceChoices: string[] = assistant && !(ASSISTANT_VOICES as readonly string[]).includes(assistant.voice) ? [...ASSISTANT_VOICES, assistant.voice] : [...ASSISTANT_VOICES];

  return (
    <form onSubmit={form.handleSubmit(onSubmit)} noValidate className="flex flex-1 flex-col">
      <div className="grid gap-5 px-6 pb-6">
        <FormInput form={form} name="name" label="Name" placeholder="e.g. Customer Support" autoComplete="off" />
        <FormInput form={form} name="description" label="Description" placeholder="What this assistant is for" autoComplete="off" />
        <FormField label="First Message" error={errors.first_message?.message} description="What the assistant says when the call connects.">
          <Textarea rows={2} className="min-h-16" placeholder="Hi! Thanks for calling. How can I help you today?" {...form.register("first_message")} />
        </FormField>
        <FormField label="Instructions" error={errors.instructions?.message} description="How the assistant should behave, what it knows and when to use its tools.">
          <Textarea rows={10} className="max-h-[60vh] min-h-56 leading-relaxed" placeholder="You are a friendly support agent for…" {...form.register("instructions")} />
        </FormField>
        <PlaceholdersHint control={form.control} />

        <div className="grid gap-5 sm:grid-cols-2">
          <SelectField
            control={form.control}
            name="voice"
            label="Voice"
            error={errors.voice?.message}
            placeholder="Choose a voice"
            options={voiceChoices.map((voice) => ({ value: voice, label: capitalise(voice) }))}
          />
          <SelectField
            control={form.control}
            name="model"
            label="Model"
            error={errors.model?.message}
            placeholder="Choose a model"
            options={modelChoices.map((model) => ({
              value: model,
              label:
                model === defaultModel ? (
                  <>
                    {model} <span className="text-muted-foreground">(default)</span>
                  </>
                ) : (
                  model
                ),
            }))}
          />
        </div>

        <VoiceEngineFields control={form.control} errors={errors} />

        <div className="grid gap-2">
          <Label id={toolsLabelId}>Tools</Label>
          <Controller
            control={form.control}
            name="tool_ids"
            render={({ field }) => <ToolPicker value={field.value ?? []} onChange={field.onChange} labelId={toolsLabelId} />}
          />
          {errors.tool_ids && <p className="text-sm text-destructive">{errors.tool_ids.message ?? errors.tool_ids.root?.message}</p>}
        </div>

        <KnowledgeFields control={form.control} register={form.register} errors={errors} />

        <HandoffFields control={form.control} register={form.register} errors={errors} />

        <OutboundFields control={form.control} register={form.register} errors={errors} />

        <AnalysisFields control={form.control} register={form.register} errors={errors} />
      </div>

      <SheetFormFooter
        onCancel={onCancel}
        submitting={isSubmitting}
        submitLabel={editing && published ? (isSubmitting ? VERSION_MESSAGES.savingDraft : VERSION_MESSAGES.saveDraft) : editing ? (isSubmitting ? "Updating..." : "Update Assistant") : isSubmitting ? "Creating..." : "Create Assistant"}
      />
    </form>
  );
}
