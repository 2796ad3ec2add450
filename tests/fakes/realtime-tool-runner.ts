/** A ToolRunner for call-engine tests: records every run and answers from a handler. */
import type { ToolRunResult, ToolRunner } from "../../src/server/voice/seams.ts";
import type { ToolDefinition } from "../../src/server/voice/tool-resolution.ts";

export type ToolHandler = (tool: ToolDefinition, args: Record<string, unknown>) => ToolRunResult | Promise<ToolRunResult>;

export class RecordingToolRunner implements ToolRunner {
  readonly runs: Array<{ tool: ToolDefinition; args: Record<string, unknown> }> = [];

  constructor(private readonly handler: ToolHandler = (tool, args) => ({ success: true, status: 200, data: { tool: tool.name, args } })) {}

  async run(tool: ToolDefinition, args: Record<string, unknown>): Promise<ToolRunResult> {
    this.runs.push({ tool, args });
    return this.handler(tool, args);
  }
}
