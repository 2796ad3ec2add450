import type { ToolExecutionErrorCode } from "../../shared/tools.ts";
import { AppError } from "../errors.ts";

/**
 * HTTP status the API answers with for each failure. The split follows whose fault it is:
 * 4xx when the tool's own configuration is unusable or points somewhere it may not go,
 * 502 when the upstream misbehaved, 504 when it was too slow.
 */
export const TOOL_ERROR_STATUS: Record<ToolExecutionErrorCode, number> = {
  tool_invalid_url: 400,
  tool_invalid_config: 400,
  tool_host_blocked: 403,
  tool_dns_failed: 502,
  tool_connection_failed: 502,
  tool_connect_timeout: 504,
  tool_timeout: 504,
  tool_response_too_large: 502,
  tool_too_many_redirects: 502,
  tool_bad_redirect: 502,
  tool_invalid_response: 502,
  // nginx's "client closed request": only the caller's own AbortSignal produces it.
  tool_aborted: 499,
};

/**
 * Raised when a tool execution produced no upstream answer to report. It is an `AppError`, so
 * the app's error handler sends `{ error: { code, message } }` with `status`; the message is
 * written for the user and never contains the API key or header values.
 */
export class ToolExecutionError extends AppError {
  declare readonly code: ToolExecutionErrorCode;
  /** The host the failure is about (the refused host, the one that timed out, ...). */
  readonly host: string | undefined;

  constructor(code: ToolExecutionErrorCode, message: string, options: { host?: string; cause?: unknown } = {}) {
    super(TOOL_ERROR_STATUS[code], code, message);
    this.name = "ToolExecutionError";
    this.host = options.host;
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

export const isToolExecutionError = (err: unknown): err is ToolExecutionError => err instanceof ToolExecutionError;
