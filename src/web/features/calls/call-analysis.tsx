import { RotateCw } from "lucide-react";
import { toast } from "sonner";
import { ANALYSIS_MESSAGES, formatSuccess, type CallAnalysis, type SuccessValue } from "@shared/analysis";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Spinner } from "@/components/ui/spinner";
import { useRunAnalysis } from "./use-calls";

/** The Success column's badge: green for pass (or a score of 7+), red for fail (or 4-), neutral for a category. */
export function SuccessBadge({ value }: { value: SuccessValue | null }) {
  if (value === null) return <span className="text-muted-foreground">—</span>;
  const good = value === "pass" || (typeof value === "number" && value >= 7);
  const bad = value === "fail" || (typeof value === "number" && value <= 4);
  return <Badge variant={good ? "success" : bad ? "destructive" : "secondary"}>{formatSuccess(value)}</Badge>;
}

const cell = (value: unknown) => (value === null || value === undefined ? "—" : typeof value === "boolean" ? (value ? "Yes" : "No") : String(value));

/** Call details, at the top: the summary, the extracted data, success with its reason; or why it failed, with a retry. */
export function CallAnalysisPanel({ callId, analysis, ended }: { callId: string; analysis: CallAnalysis | null; ended: boolean }) {
  const run = useRunAnalysis();
  const again = (
    <Button
      variant="outline"
      size="sm"
      className="w-fit"
      disabled={!ended || run.isPending || analysis?.status === "pending"}
      onClick={() =>
        run.mutate(callId, {
          onSuccess: () => toast.success(ANALYSIS_MESSAGES.queued),
          onError: (err) => toast.error(err instanceof Error ? err.message : ANALYSIS_MESSAGES.failed),
        })
      }
    >
      <RotateCw />
      {analysis?.status === "failed" ? ANALYSIS_MESSAGES.retry : ANALYSIS_MESSAGES.runAgain}
    </Button>
  );
  if (!ended) return <p className="text-sm text-muted-foreground">{ANALYSIS_MESSAGES.inProgress}</p>;
  if (!analysis) return <div className="grid gap-2">{again}</div>;
  if (analysis.status === "pending") {
    return (
      <div className="flex items-center gap-2 text-sm text-muted-foreground" data-testid="analysis-pending">
        <Spinner label={ANALYSIS_MESSAGES.pending} className="size-4" />
        {ANALYSIS_MESSAGES.pending}
      </div>
    );
  }
  if (analysis.status === "skipped") {
    return (
      <div className="grid gap-2">
        <p className="text-sm text-muted-foreground">{ANALYSIS_MESSAGES.skipped}</p>
        {again}
      </div>
    );
  }
  if (analysis.status === "failed") {
    return (
      <div className="grid gap-2 rounded-lg border border-destructive/40 p-4 text-sm" role="alert" data-testid="analysis-failed">
        <p className="font-medium text-destructive">{ANALYSIS_MESSAGES.failed}</p>
        <p>{analysis.error}</p>
        {again}
      </div>
    );
  }
  const data = Object.entries(analysis.data);
  return (
    <div className="grid gap-4 rounded-lg border p-4 text-sm" data-testid="call-analysis">
      {analysis.success && (
        <div className="grid gap-1" data-field="Success">
          <div className="flex items-center gap-2">
            <span className="text-xs font-medium text-muted-foreground">Success</span>
            <SuccessBadge value={analysis.success.value} />
          </div>
          <p>{analysis.success.reason}</p>
        </div>
      )}
      {analysis.summary !== null && (
        <div className="grid gap-1" data-field="Summary">
          <span className="text-xs font-medium text-muted-foreground">Summary</span>
          <p className="whitespace-pre-wrap">{analysis.summary}</p>
        </div>
      )}
      {data.length > 0 && (
        <table className="w-full text-left" aria-label="Extracted data">
          <tbody>
            {data.map(([name, value]) => (
              <tr key={name} className="border-t first:border-t-0">
                <th scope="row" className="py-1 pr-4 font-mono text-xs font-normal text-muted-foreground">
                  {name}
                </th>
                <td className="py-1 break-words">{cell(value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div className="flex flex-wrap items-center justify-between gap-2 text-xs text-muted-foreground">
        <span>
          {analysis.model}
          {analysis.cost !== null && ` · $${analysis.cost.toFixed(4)}`}
        </span>
        {again}
      </div>
    </div>
  );
}
