import { describe, expect, it } from "vitest";
import { RecordingToolRunner } from "../../../tests/fakes/realtime-tool-runner.ts";
import { ToolCalls, parseArguments } from "./tool-calls.ts";
import { ToolCatalog } from "./tool-resolution.ts";
import { TranscriptBuilder } from "./transcript.ts";

describe("parseArguments", () => {
  it("passes objects through and anything else on as raw", () => {
    expect(parseArguments('{"a":1}')).toEqual({ a: 1 });
    expect(parseArguments("  ")).toEqual({});
    expect(parseArguments('{"a":')).toEqual({ raw: '{"a":' });
    expect(parseArguments("42")).toEqual({ raw: "42" });
    expect(parseArguments("[1]")).toEqual({ raw: "[1]" });
  });
});

describe("ToolCalls", () => {
  function setup(handler?: ConstructorParameters<typeof RecordingToolRunner>[0]) {
    const runner = new RecordingToolRunner(handler);
    const transcript = new TranscriptBuilder(() => 0);
    const timers: Array<() => void> = [];
    const calls = new ToolCalls({
      catalog: new ToolCatalog([{ id: "t1", name: "Lookup", parameters: { type: "object", properties: { q: { type: "string" } } } }]),
      runner,
      transcript,
      now: () => 0,
      signal: new AbortController().signal,
      timeoutMs: 1000,
      after: (_ms, fn) => {
        timers.push(fn);
        return () => {};
      },
    });
    return { runner, transcript, calls, fireTimers: () => timers.forEach((fn) => fn()) };
  }

  it("assembles the arguments from the deltas and runs once per call id", async () => {
    const { runner, calls } = setup();
    calls.item("r1", { type: "function_call", id: "i1", call_id: "call_1", name: "Lookup", arguments: "" }, false);
    calls.delta("r1", "call_1", '{"q":');
    calls.delta("r1", "call_1", '"x"}');
    calls.item("r1", { type: "function_call", id: "i1", call_id: "call_1", name: "Lookup", status: "completed" }, true);
    calls.argumentsDone("r1", "call_1", "Lookup", '{"q":"x"}');
    const outputs = await calls.responseDone("r1", [{ type: "function_call", id: "i1", call_id: "call_1", name: "Lookup", arguments: '{"q":"x"}' }]);
    expect(runner.runs.map((r) => r.args)).toEqual([{ q: "x" }]);
    expect(outputs).toHaveLength(1);
    expect(calls.responseDone("r2")).toBeNull();
  });

  it("drops a call whose response was cancelled before its arguments completed", async () => {
    const { runner, calls } = setup();
    calls.item("r1", { type: "function_call", id: "i1", call_id: "call_1", name: "Lookup" }, false);
    calls.delta("r1", "call_1", '{"q":');
    expect(calls.responseDone("r1", [{ type: "function_call", call_id: "call_1", name: "Lookup", status: "incomplete" }], false)).toBeNull();
    expect(runner.runs).toEqual([]);
  });

  it("answers a tool that never returns with a timeout error", async () => {
    const { calls, transcript, fireTimers } = setup(() => new Promise(() => {}));
    calls.argumentsDone("r1", "call_1", "Lookup", "{}");
    const pending = calls.responseDone("r1")!;
    fireTimers();
    const [output] = await pending;
    expect(JSON.parse(output!.output)).toEqual({ error: "Tool timed out after 1000 ms", status: 0, data: null });
    expect(transcript.entries().at(-1)).toMatchObject({ type: "tool-response", isError: true });
  });
});
