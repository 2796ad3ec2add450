import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { History } from "lucide-react";
import { useState } from "react";
import { toast } from "sonner";
import { ANALYSIS_MESSAGES, MAX_BACKFILL_CALLS, type AnalysisRun } from "@shared/analysis";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { api } from "@/lib/api";
import { useCan } from "@/lib/use-membership";
import { queryKeys } from "@/lib/query-keys";

const PROGRESS_REFRESH_MS = 2000;

/**
 * "Analyse past calls": the assistant's last N calls analysed again with its current settings,
 * in the background; the latest run's progress is shown (and followed while it runs).
 */
export function AnalysePastCalls({ assistantId }: { assistantId: string }) {
  const client = useQueryClient();
  const mayRun = useCan("supervise");
  const [last, setLast] = useState("50");
  const key = [...queryKeys.assistants, assistantId, "analysis-run"];
  const run = useQuery({
    queryKey: key,
    queryFn: () => api<AnalysisRun | null>(`/api/assistants/${assistantId}/analysis-runs/latest`),
    refetchInterval: (q) => (q.state.data?.status === "running" ? PROGRESS_REFRESH_MS : false),
  });
  const start = useMutation({
    mutationFn: (n: number) => api<AnalysisRun>(`/api/assistants/${assistantId}/analysis-runs`, { method: "POST", body: { last: n } }),
    onSuccess: (started) => {
      client.setQueryData(key, started);
      // The calls' analyses change as the run goes: the Calls page reads them again.
      void client.invalidateQueries({ queryKey: queryKeys.calls });
      toast.success(ANALYSIS_MESSAGES.backfillQueued);
    },
    onError: (err) => toast.error(err instanceof Error ? err.message : ANALYSIS_MESSAGES.failed),
  });
  const current = run.data;
  const running = current?.status === "running";
  const n = Number(last);
  const valid = Number.isInteger(n) && n >= 1 && n <= MAX_BACKFILL_CALLS;

  return (
    <div className="grid gap-2" data-testid="analyse-past-calls">
      <div className="flex flex-wrap items-end gap-2">
        <div className="grid gap-1">
          <Label htmlFor={`${assistantId}-last`}>Last calls</Label>
          <Input id={`${assistantId}-last`} type="number" min={1} max={MAX_BACKFILL_CALLS} className="w-24" value={last} onChange={(e) => setLast(e.target.value)} />
        </div>
        <Button variant="outline" disabled={!mayRun || !valid || running || start.isPending} onClick={() => start.mutate(n)}>
          <History />
          Analyse past calls
        </Button>
      </div>
      {current && (
        <p className="text-sm text-muted-foreground" role="status">
          {running ? `${ANALYSIS_MESSAGES.backfillQueued}: ${current.finished} of ${current.total}` : `Last run: ${current.total} calls analysed`}
        </p>
      )}
    </div>
  );
}
