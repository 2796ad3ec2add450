import type { Tool, ToolExecutionResponse, ToolInput, ToolUpdate } from "../../../shared/tools.ts";
import { isUuid } from "../../../shared/ids.ts";
import { apiKeyView } from "../../../shared/tools.ts";
import type { Db } from "../../db/client.ts";
import { AppError, notFound } from "../../errors.ts";
import type { SecretBox } from "../../secrets/crypto.ts";
import type { ExecuteToolOptions, ToolHttpConfig } from "../../tools/index.ts";
import { executeTool } from "../../tools/index.ts";
import { headerHints, openApiKey, openHeaders, resolveHeaderEdit, sealHeaders, UNREADABLE_MESSAGES } from "./tool-secrets.ts";
import * as repo from "./tools.repo.ts";

export interface ToolsService {
  list(userId: string): Promise<Tool[]>;
  get(userId: string, id: string): Promise<Tool>;
  create(userId: string, input: ToolInput): Promise<Tool>;
  update(userId: string, id: string, patch: ToolUpdate): Promise<Tool>;
  remove(userId: string, id: string): Promise<void>;
  execute(userId: string, id: string, parameters: Record<string, unknown>): Promise<ToolExecutionResponse>;
}

export interface ToolsServiceDeps {
  db: Db;
  secrets: SecretBox;
  /** Engine options (allow list, limits); `allowedHosts` is usually `config.toolAllowedHosts`. */
  execution: ExecuteToolOptions;
}

export function createToolsService(deps: ToolsServiceDeps): ToolsService {
  const { db, secrets, execution } = deps;

  async function findOr404(userId: string, id: string) {
    // A malformed id can name no tool; answering 404 also keeps it away from a uuid cast.
    const row = isUuid(id) ? await repo.findTool(db, userId, id) : null;
    if (!row) throw notFound("Tool");
    return row;
  }

  const readApiKey = (row: repo.ToolRow) => openApiKey(secrets, row);

  function toView(row: repo.ToolRow): Tool {
    const apiKey = readApiKey(row);
    return {
      id: row.id,
      user_id: row.userId,
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
    async list(userId) {
      return (await repo.listTools(db, userId)).map(toView);
    },

    async get(userId, id) {
      return toView(await findOr404(userId, id));
    },

    async create(userId, input) {
      const row = await repo.insertTool(db, userId, {
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

    async update(userId, id, patch) {
      const current = await findOr404(userId, id);
      const headers = patch.http_headers && resolveHeaderEdit(patch.http_headers, openHeaders(secrets, current), headerHints(current));
      const row = await repo.updateTool(db, userId, id, {
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

    async remove(userId, id) {
      if (!isUuid(id) || !(await repo.deleteTool(db, userId, id))) throw notFound("Tool");
    },

    async execute(userId, id, parameters) {
      const row = await findOr404(userId, id);
      const apiKey = readApiKey(row);
      if (apiKey === undefined) throw new AppError(400, "tool_api_key_unreadable", UNREADABLE_MESSAGES.apiKey);
      const headers = openHeaders(secrets, row);
      if (headers === undefined) throw new AppError(400, "tool_headers_unreadable", UNREADABLE_MESSAGES.headers);
      return executeTool(toHttpConfig(row, apiKey, headers), parameters, execution);
    },
  };
}

/** What the engine needs from a stored tool; `apiKey` and `headers` are already decrypted (tool-secrets.ts). */
export function toHttpConfig(row: repo.ToolRow, apiKey: string | null, headers: Record<string, string>): ToolHttpConfig {
  return {
    http_method: row.httpMethod,
    parameter_format: row.parameterFormat,
    end_point_url: row.endPointUrl,
    api_key: apiKey,
    http_headers: headers,
    request_body: row.requestBody,
  };
}
