/**
 * The call engine's ToolRunner over the HTTP tool engine: the same `executeTool` (SSRF guard,
 * limits, redirects) the Tools page's Test button uses, with the tool's configuration as stored
 * when the call started.
 */
import { executeTool, type ExecuteToolOptions } from "../../tools/index.ts";
import type { ToolRunResult, ToolRunner } from "../../voice/seams.ts";
import type { CallToolConfig } from "../tools/tools.service.ts";

export type { CallToolConfig };

export function createCallToolRunner(
  configs: ReadonlyMap<string, CallToolConfig>,
  options: Omit<ExecuteToolOptions, "signal">,
): ToolRunner {
  return {
    async run(tool, args, signal): Promise<ToolRunResult> {
      const config = configs.get(tool.id);
      if (!config) return { success: false, status: 0, data: null, error: `Tool "${tool.name}" is not available in this call` };
      if (!config.ok) return { success: false, status: 0, data: null, error: config.error };
      try {
        const response = await executeTool(config.http, args, { ...options, signal });
        // An upstream 4xx/5xx is an answer: the model gets its status and body.
        return { success: response.success, status: response.status, data: response.data };
      } catch (err) {
        // No answer at all (refused host, timeout, ...): the engine's message is written for people.
        return { success: false, status: 0, data: null, error: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
