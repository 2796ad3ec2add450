import { useQuery } from "@tanstack/react-query";
import { CheckCircle2, Circle } from "lucide-react";
import { Link } from "react-router";
import { GETTING_STARTED_TEXTS as T, nextStep, type GettingStarted, type GettingStartedStep } from "@shared/getting-started";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

export function useGettingStarted() {
  return useQuery({ queryKey: queryKeys.gettingStarted, queryFn: () => api<GettingStarted>("/api/getting-started") });
}

/**
 * The first hour on the Assistants page (OpenAI key → assistant → test call → Twilio → number →
 * first real call), each step ticked from the organisation's data; gone once every step is done.
 * `onCreateAssistant` opens this page's own form, which a link to this page could not.
 */
export function GettingStartedChecklist({ onCreateAssistant }: { onCreateAssistant: () => void }) {
  const progress = useGettingStarted();
  // Nothing while loading or on a failure: the checklist is help, never in the way of the page.
  if (!progress.data || progress.data.complete) return null;
  const next = nextStep(progress.data);
  const doneCount = progress.data.steps.filter((s) => s.done).length;

  const action = (id: GettingStartedStep) => {
    const step = T.steps[id];
    if (id === "assistant") return <Button size="sm" variant={id === next ? "default" : "outline"} onClick={onCreateAssistant}>{step.action}</Button>;
    // Already on this page: the step's text says what to do here.
    if (step.to === "/assistants") return null;
    return (
      <Button asChild size="sm" variant={id === next ? "default" : "outline"}>
        <Link to={step.to}>{step.action}</Link>
      </Button>
    );
  };

  return (
    <Card data-testid="getting-started">
      <CardHeader>
        <CardTitle>{T.title}</CardTitle>
        <CardDescription>
          {T.description} <span className="font-medium">{T.progress(doneCount, progress.data.steps.length)}</span>
        </CardDescription>
      </CardHeader>
      <CardContent>
        <ol className="grid gap-3">
          {progress.data.steps.map(({ id, done }) => (
            <li key={id} className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2" data-step={id} data-done={done}>
              <span className="flex items-start gap-3">
                {done ? <CheckCircle2 className="mt-0.5 size-5 shrink-0 text-success" aria-hidden="true" /> : <Circle className="mt-0.5 size-5 shrink-0 text-muted-foreground" aria-hidden="true" />}
                <span>
                  <span className={done ? "font-medium text-muted-foreground line-through" : "font-medium"}>{T.steps[id].title}</span>
                  <span className="sr-only">{done ? " (done)" : " (to do)"}</span>
                  <span className="block text-sm text-muted-foreground">{T.steps[id].detail}</span>
                </span>
              </span>
              {!done && action(id)}
            </li>
          ))}
        </ol>
      </CardContent>
    </Card>
  );
}
