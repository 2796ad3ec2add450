import { type TestResult, type TestRun, type TestResultStatus } from "@shared/scenarios";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { formatCost } from "./test-format";

const STATUS_LABELS: Record<TestResultStatus, string> = {
  pending: "Waiting",
  running: "Running",
  passed: "Passed",
  failed: "Failed",
  error: "Could not run",
  cancelled: "Cancelled",
};
const STATUS_VARIANTS: Record<TestResultStatus, "success" | "destructive" | "muted" | "warning"> = {
  pending: "muted",
  running: "warning",
  passed: "success",
  failed: "destructive",
  error: "destructive",
  cancelled: "muted",
};

/** A run's progress and each scenario's verdict, reasons and conversation. */
export function TestRunResults({ run, onCancel, cancelling }: { run: TestRun; onCancel?: () => void; cancelling?: boolean }) {
  const { total, finished, passed, failed } = run.progress;
  return (
    <section className="grid gap-3" aria-label="Test results">
      <div className="flex flex-wrap items-center gap-2 text-sm" role="status">
        <span className="font-medium">{run.version === null ? "Draft" : `v${run.version}`}:</span>
        <span>
          {run.status === "running" ? `Running ${finished} of ${total}` : run.status === "cancelled" ? "Cancelled" : `${passed} of ${total} passed`}
          {failed > 0 ? `, ${failed} failed` : ""}
        </span>
        <span className="text-muted-foreground">{formatCost(run.cost)}</span>
        {run.status === "running" && onCancel && (
          <Button size="sm" variant="outline" onClick={onCancel} disabled={cancelling}>
            Cancel run
          </Button>
        )}
      </div>
      <ul className="grid gap-2">
        {run.results.map((r, i) => (
          <ResultItem key={r.scenario_id ?? i} result={r} />
        ))}
      </ul>
    </section>
  );
}

function ResultItem({ result }: { result: TestResult }) {
  return (
    <li className="grid gap-1 rounded-md border p-3 text-sm" data-result={result.status}>
      <div className="flex flex-wrap items-center gap-2">
        <span className="font-medium">{result.scenario_name}</span>
        <Badge variant={STATUS_VARIANTS[result.status]}>{STATUS_LABELS[result.status]}</Badge>
        {result.duration_ms !== null && <span className="text-muted-foreground">{(result.duration_ms / 1000).toFixed(1)} s · {formatCost(result.cost)}</span>}
      </div>
      {result.reasons.length > 0 && (
        <ul className="list-disc pl-5">
          {result.reasons.map((reason, i) => (
            <li key={i}>{reason}</li>
          ))}
        </ul>
      )}
      {result.transcript.length > 0 && (
        <details>
          <summary className="cursor-pointer text-muted-foreground">Conversation</summary>
          <ol className="mt-2 grid gap-1">
            {result.transcript.map((t, i) => (
              <li key={i} className={t.role === "tool" ? "font-mono text-xs text-muted-foreground" : undefined}>
                {t.role === "tool" ? `${t.tool?.name ?? "tool"}(${t.tool?.arguments ?? ""}) → ${t.text}` : <><span className="font-medium">{t.role === "caller" ? "Caller" : "Assistant"}:</span> {t.text}</>}
              </li>
            ))}
          </ol>
        </details>
      )}
    </li>
  );
}
