import { useState } from "react";
import { DEFAULT_MAX_TURNS, scenarioInputSchema, SCENARIO_MESSAGES, type Scenario, type ScenarioInput } from "@shared/scenarios";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";

interface ScenarioFormProps {
  /** The scenario being edited; absent when creating. */
  scenario?: Scenario;
  onSubmit: (input: ScenarioInput) => Promise<void>;
  onCancel: () => void;
}

type Field = "name" | "persona" | "goal" | "facts" | "rubric" | "max_turns" | "tool_answers" | "caller_turns";

/** Create or edit a scenario; checked with the API's schema. Tool answers and a scripted caller are typed as JSON and lines. */
export function ScenarioForm({ scenario, onSubmit, onCancel }: ScenarioFormProps) {
  const [values, setValues] = useState({
    name: scenario?.name ?? "",
    persona: scenario?.persona ?? "",
    goal: scenario?.goal ?? "",
    facts: scenario?.facts ?? "",
    rubric: scenario?.rubric ?? "",
    max_turns: String(scenario?.max_turns ?? DEFAULT_MAX_TURNS),
    tool_answers: scenario && Object.keys(scenario.tool_answers).length > 0 ? JSON.stringify(scenario.tool_answers, null, 2) : "",
    caller_turns: scenario?.caller_turns?.join("\n") ?? "",
  });
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const set = (field: Field) => (e: { target: { value: string } }) => setValues((v) => ({ ...v, [field]: e.target.value }));

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    let toolAnswers: unknown = {};
    if (values.tool_answers.trim()) {
      try {
        toolAnswers = JSON.parse(values.tool_answers);
      } catch {
        return setErrors({ tool_answers: SCENARIO_MESSAGES.toolAnswers });
      }
    }
    const lines = values.caller_turns.split("\n").map((l) => l.trim()).filter(Boolean);
    const parsed = scenarioInputSchema.safeParse({
      ...values,
      max_turns: Number(values.max_turns),
      tool_answers: toolAnswers,
      caller_turns: lines.length > 0 ? lines : null,
    });
    if (!parsed.success) {
      const found: Partial<Record<Field, string>> = {};
      for (const issue of parsed.error.issues) found[issue.path[0] as Field] ??= issue.message;
      return setErrors(found);
    }
    setErrors({});
    setBusy(true);
    try {
      await onSubmit(parsed.data);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} noValidate className="grid gap-4 rounded-md border p-4" aria-label={scenario ? `Edit ${scenario.name}` : "New scenario"}>
      <FormField label="Name" error={errors.name}>
        <Input value={values.name} onChange={set("name")} placeholder="e.g. Late order" autoComplete="off" />
      </FormField>
      <FormField label="Persona" error={errors.persona} description="Who the simulated caller is and how they behave.">
        <Textarea rows={2} value={values.persona} onChange={set("persona")} placeholder="You are Ada, your order 42 has not arrived, you are annoyed." />
      </FormField>
      <FormField label="Goal" error={errors.goal}>
        <Input value={values.goal} onChange={set("goal")} placeholder="Find out where order 42 is" autoComplete="off" />
      </FormField>
      <FormField label="Caller facts (optional)" error={errors.facts}>
        <Textarea rows={2} value={values.facts} onChange={set("facts")} placeholder="Order 42, placed on Monday, email ada@example.com" />
      </FormField>
      <FormField label="Success criteria" error={errors.rubric} description="What the judge checks the conversation against.">
        <Textarea rows={3} value={values.rubric} onChange={set("rubric")} placeholder="The assistant looks the order up and tells the caller when it arrives." />
      </FormField>
      <FormField label="Maximum turns" error={errors.max_turns}>
        <Input type="number" min={1} value={values.max_turns} onChange={set("max_turns")} className="w-28" />
      </FormField>
      <FormField label="Tool answers (optional)" error={errors.tool_answers} description='JSON: a tool&apos;s name → what it answers in tests, e.g. {"Lookup order": {"status": "shipped"}}. Tests never call real endpoints.'>
        <Textarea rows={3} className="font-mono text-xs" value={values.tool_answers} onChange={set("tool_answers")} />
      </FormField>
      <FormField label="Scripted caller (optional)" error={errors.caller_turns} description="One caller turn per line, said in order instead of playing the persona.">
        <Textarea rows={2} value={values.caller_turns} onChange={set("caller_turns")} />
      </FormField>
      <div className="flex gap-2">
        <Button type="submit" disabled={busy}>
          {busy ? "Saving..." : "Save scenario"}
        </Button>
        <Button type="button" variant="outline" onClick={onCancel} disabled={busy}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
