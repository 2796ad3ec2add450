/**
 * Tool calls within one call (spec §4 "Live conversation", §8 "Tool resolution").
 *
 * A call arrives in pieces (output_item.added → arguments deltas → arguments.done →
 * output_item.done → response.done) and is executed once, keyed by its call id. A repeat
 * with the same tool and arguments is not executed again: it reuses the first result
 * (awaiting it if still running), flagged "(cached)". Failed runs are not cached, so a
 * retry by the model really retries. The outputs of one response are handed back together
 * when that response is done, so the session can send them and ask for ONE new response.
 */
import type { ToolData, ToolUse } from "../../shared/calls.ts";
import type { ConversationItem, RealtimeItem } from "./providers/realtime-protocol.ts";
import type { BuiltIns } from "./builtins.ts";
import type { ToolRunResult, ToolRunner } from "./seams.ts";
import type { ToolCatalog, ToolDefinition } from "./tool-resolution.ts";
import type { TranscriptBuilder } from "./transcript.ts";

export interface ToolCallsDeps {
  catalog: ToolCatalog;
  runner: ToolRunner;
  transcript: TranscriptBuilder;
  now: () => number;
  signal: AbortSignal;
  /** A tool run that takes longer is answered with an error so the conversation goes on. */
  timeoutMs: number;
  /** Schedules a timer owned by the session (released when the call closes). */
  after: (ms: number, fn: () => void) => () => void;
  /** end_call / transfer_call: answered by the engine itself, never by a user's tool. */
  builtIns?: BuiltIns;
}

type FunctionCallOutput = Extract<ConversationItem, { type: "function_call_output" }>;

interface PendingCall {
  callId: string;
  responseId: string;
  name: string;
  args: string;
  /** Set when the call has been started; resolves to its output (null = nothing to send). */
  output?: Promise<FunctionCallOutput | null>;
}

const CALL_ID_PREFIX = "call_";

/** JSON with object keys sorted, so {a,b} and {b,a} are the same arguments. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Arguments as the tool gets them: the parsed object, or `{ raw }` when they are not a JSON object. */
export function parseArguments(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  return { raw: text };
}

function outputText(value: unknown): string {
  return typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
}

export class ToolCalls {
  private readonly calls = new Map<string, PendingCall>();
  private readonly cache = new Map<string, Promise<ToolRunResult>>();
  readonly used: ToolUse[] = [];

  constructor(private readonly deps: ToolCallsDeps) {}

  /** Some call of the model still waits for its output (a session must not be swapped now). */
  get pending(): boolean {
    return this.calls.size > 0;
  }

  private call(callId: string, responseId: string, name = ""): PendingCall {
    let call = this.calls.get(callId);
    if (!call) {
      call = { callId, responseId, name, args: "" };
      this.calls.set(callId, call);
    }
    if (name !== "" && call.name === "") call.name = name;
    return call;
  }

  /** response.output_item.added / .done with a function_call item. */
  item(responseId: string, item: RealtimeItem, done: boolean): void {
    if (item.type !== "function_call" || item.call_id === undefined) return;
    const call = this.call(item.call_id, responseId, item.name);
    // An incomplete call (its response was cancelled mid-arguments) is never run.
    if (done && item.status !== "incomplete") this.start(call, item.arguments);
  }

  /** response.function_call_arguments.delta */
  delta(responseId: string, callId: string, delta: string): void {
    const call = this.call(callId, responseId);
    if (!call.output) call.args += delta;
  }

  /** response.function_call_arguments.done */
  argumentsDone(responseId: string, callId: string, name: string | undefined, args: string): void {
    this.start(this.call(callId, responseId, name), args);
  }

  /**
   * response.done: starts any call only seen here, then resolves to the outputs of every
   * call of that response, or null when the response asked for no tool. Calls whose
   * arguments never completed (cancelled or failed response) are dropped unrun.
   */
  responseDone(responseId: string, output: readonly RealtimeItem[] = [], completed = true): Promise<FunctionCallOutput[]> | null {
    for (const item of output) this.item(responseId, item, true);
    const mine: PendingCall[] = [];
    for (const call of this.calls.values()) {
      if (call.responseId !== responseId) continue;
      if (completed) this.start(call, undefined);
      if (call.output) mine.push(call);
      else this.calls.delete(call.callId);
    }
    if (mine.length === 0) return null;
    return Promise.all(mine.map((c) => c.output!)).then((outputs) => {
      for (const call of mine) this.calls.delete(call.callId);
      return outputs.filter((o): o is FunctionCallOutput => o !== null);
    });
  }

  private start(call: PendingCall, finalArgs: string | undefined): void {
    if (call.output) return; // executed once per call id
    if (finalArgs !== undefined) call.args = finalArgs;
    // The model must get an answer for every call, whatever goes wrong here.
    call.output = this.execute(call).catch((err: unknown) => ({
      type: "function_call_output" as const,
      call_id: call.callId,
      output: JSON.stringify({ error: err instanceof Error ? err.message : String(err) }),
    }));
  }

  private async execute(call: PendingCall): Promise<FunctionCallOutput | null> {
    const { transcript } = this.deps;
    const answer = (value: unknown): FunctionCallOutput => ({
      type: "function_call_output",
      call_id: call.callId,
      output: outputText(value),
    });
    if (!call.callId.startsWith(CALL_ID_PREFIX)) {
      // Refused (spec), never run — but the model still gets an answer for its call, or it
      // waits for one and the assistant falls silent.
      const refusal = `Refused tool call "${call.name}": invalid call id "${call.callId}"`;
      transcript.system(refusal, true);
      return answer({ error: refusal });
    }
    const args = parseArguments(call.args);
    if (this.deps.builtIns?.has(call.name)) return answer(this.builtIn(call, args));

    const resolution = this.deps.catalog.resolve(call.name, args);
    if (!resolution.ok) {
      transcript.system(resolution.error, true);
      return answer({ error: resolution.error });
    }
    const tool = resolution.tool;
    const toolData: ToolData = { toolName: tool.name, toolId: tool.id, callId: call.callId };
    transcript.toolRequest(`Calling tool ${tool.name}`, args, toolData);

    const key = `${tool.id}\u0000${canonical(args)}`;
    const cached = this.cache.has(key);
    let run = this.cache.get(key);
    if (!run) {
      run = this.run(tool, args);
      this.cache.set(key, run);
      // A failure is not cached. `run` settles with a result, but this side chain must not be
      // able to reject with no handler whatever it does (the awaited `run` below reports it).
      void run.then(
        (r) => void (r.success || this.cache.delete(key)),
        () => void this.cache.delete(key),
      );
    }
    const result = await run;
    if (this.deps.signal.aborted) return null;

    const flag = cached ? " (cached)" : "";
    const value = result.success
      ? result.data
      : { error: result.error ?? `Tool completed with status ${result.status}`, status: result.status, data: result.data };
    const content = result.success
      ? `Tool ${tool.name} completed with status ${result.status}${flag}`
      : `Tool ${tool.name} failed: ${result.error ?? `Tool completed with status ${result.status}`}${flag}`;
    transcript.toolResponse(content, value, { ...toolData, status: result.status, ...(cached ? { cached } : {}) }, !result.success);
    this.used.push({
      name: tool.name,
      id: tool.id,
      parameters: args,
      result: value,
      timestamp: new Date(this.deps.now()).toISOString(),
      callId: call.callId,
      ...(cached ? { cached } : {}),
    });
    return answer(value);
  }

  /** A built-in function: in the transcript and the record like a tool, flagged as built-in. */
  private builtIn(call: PendingCall, args: Record<string, unknown>): unknown {
    const { transcript } = this.deps;
    const toolData: ToolData = { toolName: call.name, callId: call.callId, builtIn: true };
    transcript.toolRequest(`Calling built-in function ${call.name}`, args, toolData);
    const { value, isError } = this.deps.builtIns!.run(call.name, args);
    const content = isError ? `Built-in function ${call.name} failed: ${String((value as { error?: unknown }).error)}` : `Built-in function ${call.name} completed`;
    transcript.toolResponse(content, value, toolData, isError);
    this.used.push({ name: call.name, id: `builtin:${call.name}`, parameters: args, result: value, timestamp: new Date(this.deps.now()).toISOString(), callId: call.callId, builtIn: true });
    return value;
  }

  /** One real execution; never rejects (a thrown error or a timeout becomes a failed result). */
  private run(tool: ToolDefinition, args: Record<string, unknown>): Promise<ToolRunResult> {
    const { runner, signal, timeoutMs, after } = this.deps;
    return new Promise<ToolRunResult>((resolve) => {
      const cancel = after(timeoutMs, () =>
        resolve({ success: false, status: 0, data: null, error: `Tool timed out after ${timeoutMs} ms` }),
      );
      runner.run(tool, args, signal).then(
        (result) => {
          cancel();
          resolve(result);
        },
        (err: unknown) => {
          cancel();
          resolve({ success: false, status: 0, data: null, error: err instanceof Error ? err.message : String(err) });
        },
      );
    });
  }
}
