import { FlaskConical, Pencil, Plus, Trash2 } from "lucide-react";
import { useState } from "react";
import { isRunnable, SCENARIO_MESSAGES, type Scenario, type ScenarioInput } from "@shared/scenarios";
import { ConfirmDeleteDialog } from "@/components/confirm-delete-dialog";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useCan } from "@/lib/use-membership";
import { ScenarioForm } from "./scenario-form";
import { TestRunResults } from "./test-run-results";
import { useCancelTestRun, useDeleteScenario, useLatestTestRun, useSaveScenario, useScenarios, useStartTestRun } from "./use-tests";

/**
 * The Tests tab: the assistant's scenarios (simulated callers with success criteria), Run tests
 * against the draft with its progress and results, and the suggestions from live calls.
 */
export function AssistantTests({ assistantId }: { assistantId: string }) {
  const scenarios = useScenarios(assistantId);
  const latest = useLatestTestRun(assistantId);
  const save = useSaveScenario(assistantId);
  const remove = useDeleteScenario(assistantId);
  const start = useStartTestRun(assistantId);
  const cancel = useCancelTestRun(assistantId);
  const mayBuild = useCan("build");
  const [editing, setEditing] = useState<Scenario | "new" | null>(null);
  const [deleting, setDeleting] = useState<Scenario | null>(null);

  if (scenarios.isPending) return <p className="px-6 text-sm text-muted-foreground">Loading scenarios...</p>;
  if (scenarios.isError) return <p className="px-6 text-sm text-destructive">{scenarios.error.message}</p>;
  const runnable = scenarios.data.filter(isRunnable);
  const suggested = scenarios.data.filter((s) => s.source === "suggested" && s.status === "suggested");
  const running = latest.data?.status === "running";

  const onRun = async () => {
    try {
      await start.mutateAsync();
    } catch (err) {
      toastFailure("Failed to run the tests", err);
    }
  };
  const onSave = async (input: ScenarioInput) => {
    try {
      await save.mutateAsync({ id: editing && editing !== "new" ? editing.id : null, input });
      toast.success(SCENARIO_MESSAGES.saved);
      setEditing(null);
    } catch (err) {
      toastFailure("Failed to save the scenario", err);
    }
  };
  const onReview = async (s: Scenario, status: "accepted" | "dismissed") => {
    try {
      await save.mutateAsync({ id: s.id, input: { status } });
    } catch (err) {
      toastFailure("Failed to update the suggestion", err);
    }
  };

  return (
    <div className="grid gap-6 px-6 pb-8">
      <p className="text-sm text-muted-foreground">
        Each scenario is a simulated caller talking to the draft in text; a judge checks the conversation against its success criteria. Tests use your
        OpenAI key and never call your tools' real endpoints.
      </p>
      {mayBuild && (
        <div className="flex flex-wrap gap-2">
          <Button onClick={onRun} disabled={start.isPending || running || runnable.length === 0}>
            <FlaskConical />
            Run tests
          </Button>
          <Button variant="outline" onClick={() => setEditing("new")} disabled={editing !== null}>
            <Plus />
            New scenario
          </Button>
        </div>
      )}

      {editing !== null && <ScenarioForm key={editing === "new" ? "new" : editing.id} scenario={editing === "new" ? undefined : editing} onSubmit={onSave} onCancel={() => setEditing(null)} />}

      {latest.data && <TestRunResults run={latest.data} onCancel={mayBuild ? () => void cancel.mutateAsync(latest.data!.id).catch((err: unknown) => toastFailure("Failed to cancel", err)) : undefined} cancelling={cancel.isPending} />}

      <section className="grid gap-2" aria-label="Scenarios">
        <h3 className="text-sm font-medium">Scenarios</h3>
        {runnable.length === 0 && <p className="text-sm text-muted-foreground">{SCENARIO_MESSAGES.none}</p>}
        <ul className="grid gap-2">
          {runnable.map((s) => (
            <ScenarioItem key={s.id} scenario={s} actions={mayBuild ? { edit: () => setEditing(s), remove: () => setDeleting(s) } : undefined} />
          ))}
        </ul>
      </section>

      {suggested.length > 0 && (
        <section className="grid gap-2" aria-label="Suggested from live calls">
          <h3 className="text-sm font-medium">Suggested from live calls</h3>
          <ul className="grid gap-2">
            {suggested.map((s) => (
              <ScenarioItem key={s.id} scenario={s}>
                {mayBuild && (
                  <div className="flex gap-2 pt-1">
                    <Button size="sm" variant="outline" onClick={() => void onReview(s, "accepted")}>
                      Accept
                    </Button>
                    <Button size="sm" variant="ghost" onClick={() => void onReview(s, "dismissed")}>
                      Dismiss
                    </Button>
                  </div>
                )}
              </ScenarioItem>
            ))}
          </ul>
        </section>
      )}

      <ConfirmDeleteDialog
        item={deleting}
        title="Delete scenario?"
        consequence="will be deleted permanently. Past results keep its name."
        onOpenChange={(open) => !open && setDeleting(null)}
        onConfirm={(s) => remove.mutateAsync(s.id)}
        toasts={{ deleted: SCENARIO_MESSAGES.deleted, failed: "Failed to delete the scenario" }}
      />
    </div>
  );
}

function ScenarioItem({ scenario, actions, children }: { scenario: Scenario; actions?: { edit: () => void; remove: () => void }; children?: React.ReactNode }) {
  return (
    <li className="grid gap-1 rounded-md border p-3 text-sm" data-scenario={scenario.name}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{scenario.name}</span>
        {scenario.caller_turns && <Badge variant="muted">Scripted caller</Badge>}
        {scenario.source === "call" && <Badge variant="outline">From a call</Badge>}
        <span className="text-muted-foreground">up to {scenario.max_turns} turns</span>
        {actions && (
          <span className="ml-auto flex gap-1">
            <Button size="icon" variant="ghost" aria-label={`Edit ${scenario.name}`} onClick={actions.edit}>
              <Pencil />
            </Button>
            <Button size="icon" variant="ghost" aria-label={`Delete ${scenario.name}`} onClick={actions.remove}>
              <Trash2 />
            </Button>
          </span>
        )}
      </div>
      <p className="line-clamp-2 text-muted-foreground">{scenario.caller_turns ? scenario.caller_turns.join(" / ") : scenario.persona}</p>
      <p className="line-clamp-2">
        <span className="text-muted-foreground">Success: </span>
        {scenario.rubric}
      </p>
      {children}
    </li>
  );
}
