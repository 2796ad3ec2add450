import type { Tool, ToolExecutionResponse, ToolInput, ToolUpdate } from "../../../shared/tools.ts";
import { isUuid } from "../../../shared/ids.ts";
import { apiKeyView } from "../../../shared/tools.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import type { SecretBox } from "../../secrets/crypto.ts";
import type { ExecuteToolOptions, ToolHttpConfig } from "../../tools/index.ts";
import { executeTool } from "../../tools/index.ts";
import type { ToolDefinition } from "../../voice/tool-resolution.ts";
import { headerHints, openApiKey, openHeaders, resolveHeaderEdit, sealHeaders, UNREADABLE_MESSAGES } from "./tool-secrets.ts";
import type { ResourceService } from "../../http/resource-routes.ts";
import * as repo from "./tools.repo.ts";
import { mapPage } from "../../http/pages.ts";

export interface ToolsService extends ResourceService<Tool, Tool, ToolInput, ToolUpdate> {
  execute(organizationId: string, id: string, parameters: Record<string, unknown>): Promise<ToolExecutionResponse>;
  /**
   * What a call needs of the user's tools among `ids` (an assistant's tool_ids, in that order;
   * unknown ids are absent): their definitions for the model and, by id, what running each takes.
   */
  forCall(organizationId: string, ids: readonly string[]): Promise<CallTools>;
}

/** A tool's request configuration with its secrets opened, or why it cannot be run. */
export type CallToolConfig = { ok: true; http: ToolHttpConfig } | { ok: false; error: string };

export interface CallTools {
  definitions: ToolDefinition[];
  configs: Map<string, CallToolConfig>;
}

/** Which secret of a tool could not be opened (sealed under another APP_SECRET). */
type Runnable = { ok: true; http: ToolHttpConfig } | { ok: false; unreadable: "apiKey" | "headers" };

export interface ToolsServiceDeps {
  db: Db;
  secrets: SecretBox;
  /** Engine options (allow list, limits); `allowedHosts` is usually `config.toolAllowedHosts`. */
  execution: ExecuteToolOptions;
}

export function createToolsService(deps: ToolsServiceDeps): ToolsService {
  const { db, secrets, execution } = deps;

  async function findOr404(organizationId: string, id: string) {
    // A malformed id can name no tool; answering 404 also keeps it away from a uuid cast.
    const row = isUuid(id) ? await repo.findTool(db, organizationId, id) : null;
    if (!row) throw notFound("Tool");
    return row;
  }

  /** The one place a stored tool's key and headers are opened for a request. */
  function runnable(row: repo.ToolRow): Runnable {
    const apiKey = openApiKey(secrets, row);
    if (apiKey === undefined) return { ok: false, unreadable: "apiKey" };
    const headers = openHeaders(secrets, row);
    if (headers === undefined) return { ok: false, unreadable: "headers" };
    return { ok: true, http: toHttpConfig(row, apiKey, headers) };
  }

  function toView(row: repo.ToolRow): Tool {
    const apiKey = openApiKey(secrets, row);
    return {
      id: row.id,
      organization_id: row.organizationId,
      name: row.name,
      description: row.description,
      type: row.type,
      http_method: row.httpMethod,
      parameter_format: row.parameterFormat,
      end_point_url: row.endPointUrl,
      // A key that can no longer be decrypted is still "set": the hint alone says so.
      ...(apiKey === undefined ? { api_key_set: true, api_key_hint: "••••" } : apiKeyView(apiKey)),
      http_headers: headerHints(row),
      parameters: row.parameters,
      request_body: row.requestBody,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    };
  }

  const seal = (apiKey: string) => secrets.encrypt(apiKey);

  return {
    async page(organizationId, query) {
      return mapPage(await repo.pageTools(db, organizationId, query), (rows) => rows.map(toView));
    },

    async get(organizationId, id) {
      return toView(await findOr404(organizationId, id));
    },

    async create(organizationId, input) {
      const row = await repo.insertTool(db, organizationId, {
        name: input.name,
        description: input.description || null,
        type: input.type,
        httpMethod: input.http_method,
        parameterFormat: input.parameter_format,
        endPointUrl: input.end_point_url,
        apiKeyEncrypted: input.api_key ? seal(input.api_key) : null,
        ...sealHeaders(secrets, input.http_headers),
        parameters: input.parameters,
        requestBody: input.request_body,
      });
      return toView(row);
    },

    async update(organizationId, id, patch) {
      const current = await findOr404(organizationId, id);
      const headers = patch.http_headers && resolveHeaderEdit(patch.http_headers, openHeaders(secrets, current), headerHints(current));
      const row = await repo.updateTool(db, organizationId, id, {
        name: patch.name,
        description: patch.description === undefined ? undefined : patch.description || null,
        type: patch.type,
        httpMethod: patch.http_method,
        parameterFormat: patch.parameter_format,
        endPointUrl: patch.end_point_url,
        // Omitted or blank keeps the stored key (the edit form never shows it); null removes it.
        apiKeyEncrypted: patch.api_key === null ? null : patch.api_key ? seal(patch.api_key) : undefined,
        ...(headers ? sealHeaders(secrets, headers) : {}),
        parameters: patch.parameters,
        requestBody: patch.request_body,
      });
      // Deleted between the read and the write (another tab): same answer as never found.
      if (!row) throw notFound("Tool");
      return toView(row);
    },

    async remove(organizationId, id) {
      if (!isUuid(id) || !(await repo.deleteTool(db, organizationId, id))) throw notFound("Tool");
    },

    async execute(organizationId, id, parameters) {
      const tool = runnable(await findOr404(organizationId, id));
      if (!tool.ok && tool.unreadable === "apiKey") throw new AppError(400, "tool_api_key_unreadable", UNREADABLE_MESSAGES.apiKey);
      if (!tool.ok) throw new AppError(400, "tool_headers_unreadable", UNREADABLE_MESSAGES.headers);
      return executeTool(tool.http, parameters, execution);
    },

    async forCall(organizationId, ids) {
      // A malformed id names no tool; leaving it out also keeps it away from a uuid cast.
      const rows = await repo.findToolsInOrder(db, organizationId, ids.filter(isUuid));
      const configs = new Map<string, CallToolConfig>();
      for (const row of rows) {
        const tool = runnable(row);
        // What the model is told when it asks for a tool that cannot run: named, with the fix.
        const error = tool.ok
          ? null
          : tool.unreadable === "apiKey"
            ? `The API key of tool "${row.name}" can no longer be read. Edit the tool and enter the key again.`
            : `The header values of tool "${row.name}" can no longer be read. Edit the tool and enter them again.`;
        configs.set(row.id, tool.ok ? tool : { ok: false, error: error! });
      }
      const definitions = rows.map((row) => ({ id: row.id, name: row.name, description: row.description, parameters: row.parameters }));
      return { definitions, configs };
    },
  };
}

/** What the engine needs from a stored tool; `apiKey` and `headers` are already decrypted (tool-secrets.ts). */
function toHttpConfig(row: repo.ToolRow, apiKey: string | null, headers: Record<string, string>): ToolHttpConfig {
  return {
    http_method: row.httpMethod,
    parameter_format: row.parameterFormat,
    end_point_url: row.endPointUrl,
    api_key: apiKey,
    http_headers: headers,
    request_body: row.requestBody,
  };
}
