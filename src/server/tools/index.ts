// The HTTP tool engine's public surface, shared by the Tools page's Test button and the call engine.
export type { ToolArguments, ToolHttpConfig } from "./build-request.ts";
export { buildToolRequest } from "./build-request.ts";
export { isToolExecutionError, TOOL_ERROR_STATUS, ToolExecutionError } from "./errors.ts";
export type { ExecuteToolOptions } from "./execute-tool.ts";
export { executeTool, TOOL_EXECUTION_DEFAULTS } from "./execute-tool.ts";
export type { ResolvedAddress, Resolver } from "./ssrf-guard.ts";
export { assertIpLiteralAllowed, describeBlockedAddress, isHostAllowed, systemResolver } from "./ssrf-guard.ts";
// Webhook deliveries go out through the same guarded, redirect-refusing request as tools.
export type { HopResult } from "./http-client.ts";
export { sendRequest } from "./http-client.ts";
