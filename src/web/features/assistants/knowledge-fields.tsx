import { useId } from "react";
import { Link } from "react-router";
import { Controller, useWatch } from "react-hook-form";
import { useQuery } from "@tanstack/react-query";
import { DEFAULT_KNOWLEDGE_TOOL_DESCRIPTION, MAX_SEARCH_LIMIT, type KnowledgeBase } from "@shared/knowledge";
import { Checkbox } from "@/components/ui/checkbox";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Textarea } from "@/components/ui/textarea";
import { apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { FormSectionProps } from "./form-section";

/** The knowledge bases the assistant answers from, how it uses them, and how many passages a question gets. */
export function KnowledgeFields({ control, register, errors }: FormSectionProps) {
  const headingId = useId();
  const bases = useQuery({ queryKey: queryKeys.knowledgeBases, queryFn: () => apiList<KnowledgeBase>("/api/knowledge-bases") });
  const [ids, mode] = useWatch({ control, name: ["knowledge_base_ids", "knowledge.mode"] });
  return (
    <fieldset className="grid gap-3" aria-labelledby={headingId}>
      <Label id={headingId} className="text-base">
        Knowledge
      </Label>
      {bases.data?.length === 0 && (
        <p className="text-sm text-muted-foreground">
          No knowledge bases yet: add documents on the <Link to="/knowledge" className="underline">Knowledge</Link> page.
        </p>
      )}
      <Controller
        control={control}
        name="knowledge_base_ids"
        render={({ field }) => (
          <div className="grid gap-2">
            {bases.data?.map((b) => {
              const value = field.value ?? [];
              const checked = value.includes(b.id);
              return (
                <div key={b.id} className="flex items-center gap-2">
                  <Checkbox
                    id={`${headingId}-${b.id}`}
                    checked={checked}
                    onCheckedChange={(v) => field.onChange(v === true ? [...value, b.id] : value.filter((id) => id !== b.id))}
                  />
                  <Label htmlFor={`${headingId}-${b.id}`} className="font-normal">
                    {b.name} <span className="text-muted-foreground">({b.chunk_count} passages)</span>
                  </Label>
                </div>
              );
            })}
          </div>
        )}
      />
      {errors.knowledge_base_ids && <p className="text-sm text-destructive">{errors.knowledge_base_ids.message ?? errors.knowledge_base_ids.root?.message}</p>}
      {(ids?.length ?? 0) > 0 && (
        <>
          <FormField label="How the assistant uses them" error={errors.knowledge?.mode?.message}>
            <select className="h-9 rounded-md border bg-background px-2 text-sm" {...register("knowledge.mode")}>
              <option value="tool">As a tool it calls when it needs facts</option>
              <option value="instructions">Whole text in the instructions (small bases)</option>
            </select>
          </FormField>
          {mode !== "instructions" && (
            <>
              <FormField label="Tool description" error={errors.knowledge?.tool_description?.message} description="When the model should search; leave blank for the default.">
                <Textarea rows={3} placeholder={DEFAULT_KNOWLEDGE_TOOL_DESCRIPTION} {...register("knowledge.tool_description")} />
              </FormField>
              <FormField label="Passages per question" error={errors.knowledge?.passages?.message}>
                <Input type="number" min={1} max={MAX_SEARCH_LIMIT} className="w-24" {...register("knowledge.passages", { valueAsNumber: true })} />
              </FormField>
            </>
          )}
        </>
      )}
    </fieldset>
  );
}
