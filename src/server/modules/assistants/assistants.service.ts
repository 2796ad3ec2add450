import type { Assistant, AssistantInput, AssistantUpdate } from "../../../shared/assistants.ts";
import { modelOptions } from "../../../shared/assistants.ts";
import { isUuid } from "../../../shared/ids.ts";
import { findPlaceholders } from "../../../shared/variables.ts";
import type { Db } from "../../db/client.ts";
import { badRequest, notFound } from "../../errors.ts";
import * as repo from "./assistants.repo.ts";

export interface AssistantsService {
  list(organizationId: string): Promise<Assistant[]>;
  get(organizationId: string, id: string): Promise<Assistant>;
  /** `by`: who saves it, the publisher of its first version (services.ts); null for an API key. */
  create(organizationId: string, input: AssistantInput, by?: string | null): Promise<Assistant>;
  update(organizationId: string, id: string, patch: AssistantUpdate): Promise<Assistant>;
  remove(organizationId: string, id: string): Promise<void>;
  /** The stored assistant a call runs (server-side: no 404, null when it is not the user's). */
  forCall(organizationId: string, id: string): Promise<repo.AssistantRow | null>;
}

export function createAssistantsService(deps: { db: Db; defaultModel: string }): AssistantsService {
  const { db, defaultModel } = deps;

  /** One query for the tools of any number of assistants. */
  async function withTools(organizationId: string, rows: repo.AssistantRow[]): Promise<Assistant[]> {
    const ids = [...new Set(rows.flatMap((r) => r.toolIds))].filter(isUuid);
    const byId = new Map((await repo.findOwnTools(db, organizationId, ids)).map((t) => [t.id, t]));
    return rows.map((row) => toView(row, byId));
  }

  async function findOr404(organizationId: string, id: string) {
    // A malformed id can name no assistant; answering 404 also keeps it away from a uuid cast.
    const row = isUuid(id) ? await repo.findAssistant(db, organizationId, id) : null;
    if (!row) throw notFound("Assistant");
    return row;
  }

  /** tool_ids may only name the caller's own tools; anything else is refused, not silently dropped. */
  async function checkTools(organizationId: string, toolIds: string[]) {
    const found = new Set((await repo.findOwnTools(db, organizationId, toolIds)).map((t) => t.id));
    const missing = toolIds.filter((id) => !found.has(id));
    if (missing.length === 1) throw badRequest(`Tool ${missing[0]} does not exist or is not one of your tools`, "unknown_tool");
    if (missing.length > 1) throw badRequest(`Tools ${missing.join(", ")} do not exist or are not among your tools`, "unknown_tool");
  }

  function checkModel(model: string, current?: string) {
    const allowed = modelOptions(defaultModel);
    // An assistant keeps a model that was valid when it was saved, even after the default changes.
    if (!allowed.includes(model) && model !== current) {
      throw badRequest(`Model must be one of: ${allowed.join(", ")}`, "unknown_model");
    }
  }

  return {
    async list(organizationId) {
      return withTools(organizationId, await repo.listAssistants(db, organizationId));
    },

    async get(organizationId, id) {
      const [view] = await withTools(organizationId, [await findOr404(organizationId, id)]);
      return view!;
    },

    async create(organizationId, input) {
      const model = input.model ?? defaultModel;
      checkModel(model);
      await checkTools(organizationId, input.tool_ids);
      const row = await repo.insertAssistant(db, organizationId, {
        name: input.name,
        description: input.description,
        firstMessage: input.first_message,
        instructions: input.instructions,
        toolIds: input.tool_ids,
        voice: input.voice,
        model,
        transferDestinations: input.transfer_destinations,
        allowEndCall: input.allow_end_call,
        keypadInput: input.keypad_input,
        timezone: input.timezone,
        voicemail: input.voicemail,
        allowDoNotCall: input.allow_do_not_call,
        analysis: input.analysis,
      });
      const [view] = await withTools(organizationId, [row]);
      return view!;
    },

    async update(organizationId, id, patch) {
      const current = await findOr404(organizationId, id);
      if (patch.model !== undefined) checkModel(patch.model, current.model);
      if (patch.tool_ids !== undefined) await checkTools(organizationId, patch.tool_ids);
      const row = await repo.updateAssistant(db, organizationId, id, {
        name: patch.name,
        description: patch.description,
        firstMessage: patch.first_message,
        instructions: patch.instructions,
        toolIds: patch.tool_ids,
        voice: patch.voice,
        model: patch.model,
        transferDestinations: patch.transfer_destinations,
        allowEndCall: patch.allow_end_call,
        keypadInput: patch.keypad_input,
        timezone: patch.timezone,
        voicemail: patch.voicemail,
        allowDoNotCall: patch.allow_do_not_call,
        analysis: patch.analysis,
      });
      // Deleted between the read and the write (another tab): same answer as never found.
      if (!row) throw notFound("Assistant");
      const [view] = await withTools(organizationId, [row]);
      return view!;
    },

    async remove(organizationId, id) {
      if (!isUuid(id) || !(await repo.deleteAssistant(db, organizationId, id))) throw notFound("Assistant");
    },

    async forCall(organizationId, id) {
      // A malformed id names no assistant; answering null also keeps it away from a uuid cast.
      return isUuid(id) ? repo.findAssistant(db, organizationId, id) : null;
    },
  };
}

/**
 * A tool deleted after it was connected stays in the stored tool_ids (they are JSON, without a
 * foreign key); the API shows only the tools that still exist, so the count and the list agree.
 */
function toView(row: repo.AssistantRow, toolsById: Map<string, repo.ToolSummaryRow>): Assistant {
  const connected = row.toolIds.flatMap((id) => toolsById.get(id) ?? []);
  return {
    id: row.id,
    organization_id: row.organizationId,
    name: row.name,
    description: row.description,
    first_message: row.firstMessage,
    instructions: row.instructions,
    tool_ids: connected.map((t) => t.id),
    tools: connected.map(({ id, name, type }) => ({ id, name, type })),
    voice: row.voice,
    model: row.model,
    transfer_destinations: row.transferDestinations,
    allow_end_call: row.allowEndCall,
    keypad_input: row.keypadInput,
    timezone: row.timezone,
    voicemail: row.voicemail ?? null,
    allow_do_not_call: row.allowDoNotCall,
    variables: findPlaceholders(row.instructions, row.firstMessage),
    analysis: repo.analysisSettingsOf(row),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
