import { AlertCircle, Database, FlaskConical, Info } from "lucide-react";
import { useState, type FormEvent } from "react";
import { DATABASE_QUERY_OPERATORS, TOOL_MESSAGES, type Tool, type ToolExecutionResponse } from "@shared/tools";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { FormField } from "@/components/ui/form-field";
import { Input } from "@/components/ui/input";
import { PanelHeader } from "@/components/panel-sheet";
import { Sheet, SheetContent, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { toast } from "@/components/ui/sonner";
import { ApiError } from "@/lib/api";
import { prettyJson } from "@/lib/format";
import { buildTestParameters, placeholderFor, testParametersOf } from "./test-parameters";
import { MethodBadge } from "./tool-format";
import { PANEL_WIDTH } from "./tool-sheet";
import { useExecuteTool } from "./use-tools";

interface ToolTestPanelProps {
  tool: Tool | null;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** The Test panel (spec §2): one input per parameter, Launch Test, and the upstream's answer. */
export function ToolTestPanel({ tool, open, onOpenChange }: ToolTestPanelProps) {
  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent className={PANEL_WIDTH}>
        {tool ? (
          // Keyed by tool: another tool starts with empty inputs and no result.
          <ToolTest key={tool.id} tool={tool} />
        ) : (
          <SheetHeader>
            <SheetTitle>Test Tool</SheetTitle>
          </SheetHeader>
        )}
      </SheetContent>
    </Sheet>
  );
}

const OPERATOR_MEANINGS: Record<(typeof DATABASE_QUERY_OPERATORS)[number], string> = {
  eq: "equals",
  gt: "greater than",
  lt: "less than",
  gte: "greater than or equal",
  lte: "less than or equal",
  neq: "not equal",
  like: "matches a pattern",
};

function ToolTest({ tool }: { tool: Tool }) {
  const parameters = testParametersOf(tool);
  const execute = useExecuteTool();
  const [values, setValues] = useState<Record<string, string>>({});
  const [fieldErrors, setFieldErrors] = useState<Record<string, string>>({});
  const [result, setResult] = useState<ToolExecutionResponse | null>(null);
  const [error, setError] = useState<{ title: string; message?: string } | null>(null);
  const testing = execute.isPending;

  const launch = async (e: FormEvent) => {
    e.preventDefault();
    const built = buildTestParameters(parameters, values);
    setFieldErrors(built.errors);
    if (Object.keys(built.errors).length > 0) return;
    setError(null);
    setResult(null);
    try {
      const response = await execute.mutateAsync({ id: tool.id, parameters: built.parameters });
      setResult(response);
      if (response.success) toast.success(TOOL_MESSAGES.testSucceeded);
      else toast.warning(TOOL_MESSAGES.testCompletedWithStatus(response.status));
    } catch (err) {
      const message = err instanceof Error ? err.message : undefined;
      setError(err instanceof ApiError ? { title: TOOL_MESSAGES.executionError, message } : { title: TOOL_MESSAGES.unexpectedError });
      toast.error(TOOL_MESSAGES.testFailed, { description: message });
    }
  };

  return (
    <>
      <PanelHeader title={`Test Tool: ${tool.name}`} description={tool.description || "No description provided"} />

      <form onSubmit={(e) => void launch(e)} noValidate className="grid gap-6 px-6 pb-8" aria-label="Test tool">
        <div className="flex min-w-0 items-center gap-2 rounded-md border bg-muted/40 px-3 py-2">
          <MethodBadge method={tool.http_method} />
          <span className="min-w-0 font-mono text-[13px] break-all" data-testid="test-request-url">
            {tool.end_point_url}
          </span>
        </div>

        {tool.parameter_format === "database-query" && tool.http_method === "GET" && (
          <div className="flex gap-3 rounded-md border border-sky-200 bg-sky-50 px-4 py-3 text-sm text-sky-900">
            <Database className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <div className="grid gap-1.5">
              <p className="font-medium">Database query format</p>
              <p>
                Each parameter becomes a filter. Start a value with an operator prefix:{" "}
                {DATABASE_QUERY_OPERATORS.map((op, i) => (
                  <span key={op}>
                    <code className="rounded bg-sky-100 px-1 font-mono text-[12px]">{op}.</code> ({OPERATOR_MEANINGS[op]})
                    {i < DATABASE_QUERY_OPERATORS.length - 1 ? ", " : "."}
                  </span>
                ))}{" "}
                Without a prefix, <code className="rounded bg-sky-100 px-1 font-mono text-[12px]">eq.</code> is the default: <code className="font-mono text-[12px]">gt.100</code> finds values above 100,{" "}
                <code className="font-mono text-[12px]">shipped</code> means <code className="font-mono text-[12px]">eq.shipped</code>.
              </p>
            </div>
          </div>
        )}

        {(tool.http_method === "POST" || tool.http_method === "PUT") && (
          <div className="flex gap-3 rounded-md border border-violet-200 bg-violet-50 px-4 py-3 text-sm text-violet-900">
            <Info className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <p>
              Parameters are sent as a JSON body (merged with the tool&apos;s request body), together with its configured headers.
            </p>
          </div>
        )}

        <section className="grid gap-4" aria-label="Parameters">
          <h3 className="text-sm font-semibold">Parameters</h3>
          {parameters.length === 0 ? (
            <p className="text-sm text-muted-foreground">This tool has no parameters. Launch the test to call it as it is.</p>
          ) : (
            parameters.map((p) => (
              <FormField
                key={p.name}
                label={
                  <span className="flex items-center gap-2">
                    <span className="font-mono text-[13px]">{p.name}</span>
                    {p.required && (
                      <span className="text-destructive" aria-label="required">
                        *
                      </span>
                    )}
                    <Badge variant="muted" className="font-mono font-normal">
                      {p.type}
                    </Badge>
                  </span>
                }
                description={p.description}
                error={fieldErrors[p.name]}
              >
                <Input
                  name={p.name}
                  value={values[p.name] ?? ""}
                  placeholder={placeholderFor(p.type)}
                  autoComplete="off"
                  className={p.type === "object" || p.type === "array" ? "font-mono text-[13px] md:text-[13px]" : undefined}
                  onChange={(e) => setValues((v) => ({ ...v, [p.name]: e.target.value }))}
                />
              </FormField>
            ))
          )}
        </section>

        <Button type="submit" disabled={testing} className="w-full sm:w-fit">
          <FlaskConical />
          {testing ? "Testing..." : "Launch Test"}
        </Button>

        {error && (
          <div role="alert" className="flex gap-3 rounded-md border border-red-200 bg-red-50 px-4 py-3 text-sm text-red-900">
            <AlertCircle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            <div className="grid min-w-0 gap-1">
              <p className="font-medium">{error.title}</p>
              {error.message && <p className="break-words">{error.message}</p>}
            </div>
          </div>
        )}

        {result && <TestResult result={result} />}
      </form>
    </>
  );
}

function TestResult({ result }: { result: ToolExecutionResponse }) {
  const body = result.data === null || result.data === undefined ? null : typeof result.data === "string" ? result.data : prettyJson(result.data);
  return (
    <section className="grid gap-3 rounded-lg border" aria-label="Test result" data-testid="test-result">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2 border-b px-4 py-3">
        <span className="text-sm font-semibold">Status</span>
        <Badge variant={result.success ? "success" : result.status >= 500 ? "destructive" : "warning"} className="font-mono">
          {result.status} {result.statusText}
        </Badge>
      </div>
      <div className="grid gap-1.5 px-4">
        <span className="text-xs font-medium text-muted-foreground">Request</span>
        <div className="flex min-w-0 items-start gap-2">
          <MethodBadge method={result.method} className="mt-px" />
          <span className="min-w-0 font-mono text-[13px] break-all">{result.url}</span>
        </div>
      </div>
      <div className="grid gap-1.5 px-4 pb-4">
        <span className="text-xs font-medium text-muted-foreground">Response</span>
        {body === null ? (
          <p className="text-sm text-muted-foreground italic">Empty response</p>
        ) : (
          <pre className="max-h-96 overflow-auto rounded-md bg-zinc-950 px-3 py-2 font-mono text-[12.5px] leading-relaxed whitespace-pre-wrap break-words text-zinc-100">
            {body}
          </pre>
        )}
      </div>
    </section>
  );
}
