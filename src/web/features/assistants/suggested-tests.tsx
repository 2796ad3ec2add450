import { Check, X } from "lucide-react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { SUGGESTION_TEXTS } from "@shared/replay";
import type { Scenario } from "@shared/scenarios";
import { Button } from "@/components/ui/button";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { useCan } from "@/lib/use-membership";

const scenariosPath = (assistantId: string) => `/api/assistants/${encodeURIComponent(assistantId)}/scenarios`;

/**
 * "Suggested from live calls": the scenarios made from supervisors' corrections that wait for a
 * decision, each with the caller's words and the expected behaviour, to accept (it then runs with
 * the other tests) or dismiss. Reads the same cached list as the rest of the Tests.
 */
export function SuggestedTests({ assistantId }: { assistantId: string }) {
  const client = useQueryClient();
  const mayDecide = useCan("build");
  const list = useQuery({ queryKey: queryKeys.scenarios(assistantId), queryFn: () => api<Scenario[]>(scenariosPath(assistantId)) });
  const decide = useMutation({
    mutationFn: ({ id, status }: { id: string; status: "accepted" | "dismissed" }) =>
      api<Scenario>(`${scenariosPath(assistantId)}/${encodeURIComponent(id)}`, { method: "PATCH", body: { status } }),
    onSuccess: (scenario) => {
      toast.success(scenario.status === "accepted" ? SUGGESTION_TEXTS.accepted : SUGGESTION_TEXTS.dismissed);
      return client.invalidateQueries({ queryKey: queryKeys.scenarios(assistantId) });
    },
    onError: (err) => toast.error(err instanceof Error ? err.message : String(err)),
  });
  const waiting = (list.data ?? []).filter((s) => s.source === "suggested" && s.status === "suggested");

  return (
    <section className="grid gap-3" aria-label={SUGGESTION_TEXTS.title} data-testid="suggested-tests">
      <div className="grid gap-1">
        <h3 className="text-sm font-semibold">{SUGGESTION_TEXTS.title}</h3>
        <p className="text-xs text-muted-foreground">{SUGGESTION_TEXTS.description}</p>
      </div>
      {list.isSuccess && waiting.length === 0 && <p className="text-sm text-muted-foreground">{SUGGESTION_TEXTS.empty}</p>}
      <ul className="grid gap-3">
        {waiting.map((s) => (
          <li key={s.id} className="grid gap-2 rounded-lg border p-3 text-sm" aria-label={s.name}>
            <p className="font-medium">{s.name}</p>
            <ol className="grid gap-1 text-muted-foreground">
              {(s.caller_turns ?? []).map((turn, i) => (
                <li key={i}>Caller: {turn}</li>
              ))}
            </ol>
            <p className="whitespace-pre-wrap">{s.rubric}</p>
            {mayDecide && (
              <div className="flex gap-2">
                <Button size="sm" disabled={decide.isPending} onClick={() => decide.mutate({ id: s.id, status: "accepted" })}>
                  <Check />
                  {SUGGESTION_TEXTS.accept}
                </Button>
                <Button size="sm" variant="outline" disabled={decide.isPending} onClick={() => decide.mutate({ id: s.id, status: "dismissed" })}>
                  <X />
                  {SUGGESTION_TEXTS.dismiss}
                </Button>
              </div>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
