import type { Assistant, AssistantInput, AssistantUpdate } from "../../../shared/assistants.ts";
import { modelOptions } from "../../../shared/assistants.ts";
import { isUuid } from "../../../shared/ids.ts";
import type { Page, PageQuery } from "../../../shared/pages.ts";
import { findPlaceholders } from "../../../shared/variables.ts";
import { DEFAULT_ASSISTANT_KNOWLEDGE, type AssistantKnowledge } from "../../../shared/knowledge.ts";
import { DEFAULT_VOICE_ENGINE, VOICE_ENGINE_MESSAGES, type ProviderKind, type ProviderProtocol, type VoiceEngine } from "../../../shared/providers.ts";
import type { Db } from "../../db/client.ts";
import { badRequest, notFound } from "../../errors.ts";
import type { ResourceService } from "../../http/resource-routes.ts";
import * as repo from "./assistants.repo.ts";
import { callSettingsOf } from "./assistant-settings.ts";
import { mapPage } from "../../http/pages.ts";

export interface AssistantsService extends ResourceService<Assistant, Assistant, AssistantInput, AssistantUpdate> {
  /** `by`: who saves it, the publisher of its first version (services.ts); null for an API key. */
  create(organizationId: string, input: AssistantInput, by?: string | null): Promise<Assistant>;
  /** The stored assistant a call runs (server-side: no 404, null when it is not the user's). */
  forCall(organizationId: string, id: string): Promise<repo.AssistantRow | null>;
  /** Every stored assistant of the organisation (server-side, as `forCall`). */
  allForCall(organizationId: string): Promise<repo.AssistantRow[]>;
  /** A page of the rows, in the assistants list's order (each assistant's draft state pages with it). */
  pageForCall(organizationId: string, query: PageQuery): Promise<Page<repo.AssistantRow>>;
}

/** What the assistants ask of the knowledge module: are these bases the organisation's, and does their text fit the instructions. */
export interface KnowledgeCheck {
  checkBaseIds(organizationId: string, ids: string[]): Promise<void>;
  wholeText(organizationId: string, ids: string[]): Promise<string>;
}

/** What the assistants ask of the providers module: the kind of each of the organisation's providers named. */
export interface ProviderCheck {
  kindsOf(organizationId: string, ids: string[]): Promise<Map<string, { kind: ProviderKind; protocol: ProviderProtocol }>>;
}

export function createAssistantsService(deps: { db: Db; defaultModel: string; knowledge: KnowledgeCheck; providers?: ProviderCheck }): AssistantsService {
  const { db, defaultModel } = deps;

  /** Bases of another organisation are refused; "whole text in the instructions" only for a base small enough. */
  async function checkKnowledge(organizationId: string, ids: string[], knowledge: AssistantKnowledge) {
    await deps.knowledge.checkBaseIds(organizationId, ids);
    if (knowledge.mode === "instructions" && ids.length > 0) await deps.knowledge.wholeText(organizationId, ids);
  }

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

  /** Each slot of a pipeline names a provider of the organisation, of the kind the slot needs. */
  async function checkEngine(organizationId: string, engine: VoiceEngine | undefined) {
    if (engine?.type !== "pipeline") return;
    const slots = [["transcriber", engine.transcriber.provider_id], ["model", engine.model.provider_id], ["voice", engine.voice.provider_id]] as const;
    const found = deps.providers ? await deps.providers.kindsOf(organizationId, slots.map(([, id]) => id)) : new Map<string, { kind: ProviderKind; protocol: ProviderProtocol }>();
    for (const [slot, id] of slots) {
      const provider = found.get(id);
      if (provider?.kind !== slot) throw badRequest(VOICE_ENGINE_MESSAGES.wrongKind(slot), "unknown_provider");
    }
  }

  function checkModel(model: string, current?: string) {
    const allowed = modelOptions(defaultModel);
    // An assistant keeps a model that was valid when it was saved, even after the default changes.
    if (!allowed.includes(model) && model !== current) {
      throw badRequest(`Model must be one of: ${allowed.join(", ")}`, "unknown_model");
    }
  }

  return {
    allForCall: (organizationId) => repo.listAssistants(db, organizationId),
    pageForCall: (organizationId, query) => repo.pageAssistants(db, organizationId, query),

    async page(organizationId, query) {
      return mapPage(await repo.pageAssistants(db, organizationId, query), (rows) => withTools(organizationId, rows));
    },

    async get(organizationId, id) {
      const [view] = await withTools(organizationId, [await findOr404(organizationId, id)]);
      return view!;
    },

    async create(organizationId, input) {
      const model = input.model ?? defaultModel;
      checkModel(model);
      await checkTools(organizationId, input.tool_ids);
      await checkKnowledge(organizationId, input.knowledge_base_ids, input.knowledge);
      await checkEngine(organizationId, input.voice_engine);
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
        knowledgeBaseIds: input.knowledge_base_ids,
        knowledge: input.knowledge,
        voiceEngine: input.voice_engine,
      });
      const [view] = await withTools(organizationId, [row]);
      return view!;
    },

    async update(organizationId, id, patch) {
      const current = await findOr404(organizationId, id);
      if (patch.model !== undefined) checkModel(patch.model, current.model);
      if (patch.tool_ids !== undefined) await checkTools(organizationId, patch.tool_ids);
      await checkEngine(organizationId, patch.voice_engine);
      if (patch.knowledge_base_ids !== undefined || patch.knowledge !== undefined) {
        await checkKnowledge(organizationId, patch.knowledge_base_ids ?? current.knowledgeBaseIds, patch.knowledge ?? current.knowledge ?? DEFAULT_ASSISTANT_KNOWLEDGE);
      }
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
        knowledgeBaseIds: patch.knowledge_base_ids,
        knowledge: patch.knowledge,
        voiceEngine: patch.voice_engine,
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
    ...callSettingsOf(row),
    tool_ids: connected.map((t) => t.id),
    tools: connected.map(({ id, name, type }) => ({ id, name, type })),
    variables: findPlaceholders(row.instructions, row.firstMessage),
    analysis: repo.analysisSettingsOf(row),
    knowledge_base_ids: row.knowledgeBaseIds,
    knowledge: row.knowledge ?? DEFAULT_ASSISTANT_KNOWLEDGE,
    voice_engine: row.voiceEngine ?? DEFAULT_VOICE_ENGINE,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
