/**
 * An assistant's knowledge bases in a call: either the retrieval function the model calls when it
 * needs facts (its answer goes back within the same round trip: the question's embedding is the
 * only remote request), or — for a small base — the whole text placed in the instructions.
 * Each passage keeps its source so the model can name it; the tool call and its answer are kept
 * on the call's record like any tool's, so the transcript and the analysis see them.
 */
import { assistantKnowledgeSchema, DEFAULT_ASSISTANT_KNOWLEDGE, DEFAULT_KNOWLEDGE_TOOL_DESCRIPTION, KNOWLEDGE_TOOL_NAME, type AssistantKnowledge } from "../../../shared/knowledge.ts";
import type { AssistantContent } from "../../../shared/versions.ts";
import type { ToolRunner } from "../../voice/seams.ts";
import type { ToolDefinition } from "../../voice/tool-resolution.ts";
import type { KnowledgeService } from "../knowledge/knowledge.service.ts";

export const KNOWLEDGE_TOOL_ID = `builtin:${KNOWLEDGE_TOOL_NAME}`;

export type CallKnowledgeService = Pick<KnowledgeService, "searchForCall" | "wholeText">;

/** What a call uses: the bases and how many passages a question gets (null: none). */
export interface CallKnowledge {
  baseIds: string[];
  passages: number;
}

/** The version's knowledge settings; a version made before knowledge bases has none. */
export function knowledgeOf(content: AssistantContent): { baseIds: string[]; settings: AssistantKnowledge } {
  const ids = Array.isArray(content.knowledge_base_ids) ? content.knowledge_base_ids.filter((id): id is string => typeof id === "string") : [];
  const parsed = assistantKnowledgeSchema.safeParse(content.knowledge ?? {});
  return { baseIds: ids, settings: parsed.success ? parsed.data : DEFAULT_ASSISTANT_KNOWLEDGE };
}

export function knowledgeTool(settings: AssistantKnowledge): ToolDefinition {
  return {
    id: KNOWLEDGE_TOOL_ID,
    name: KNOWLEDGE_TOOL_NAME,
    description: settings.tool_description ?? DEFAULT_KNOWLEDGE_TOOL_DESCRIPTION,
    parameters: {
      type: "object",
      properties: { query: { type: "string", description: "The caller's question, in full, as a search for the documents." } },
      required: ["query"],
    },
  };
}

/**
 * The call's tools and instructions with its knowledge: in "instructions" mode the bases' text is
 * appended (a base grown past the limit since falls back to the tool); else the retrieval tool.
 */
export async function withKnowledgeSetup(
  service: CallKnowledgeService,
  organizationId: string,
  content: AssistantContent,
  instructions: string,
): Promise<{ instructions: string; tools: ToolDefinition[]; knowledge: CallKnowledge | null }> {
  const { baseIds, settings } = knowledgeOf(content);
  if (baseIds.length === 0) return { instructions, tools: [], knowledge: null };
  if (settings.mode === "instructions") {
    const text = await service.wholeText(organizationId, baseIds).catch(() => null);
    if (text !== null) {
      const documents = `Company documents — answer questions of fact only from these, and name the document you answer from:\n\n${text}`;
      return { instructions: instructions ? `${instructions}\n\n${documents}` : documents, tools: [], knowledge: null };
    }
  }
  return { instructions, tools: [knowledgeTool(settings)], knowledge: { baseIds, passages: settings.passages } };
}

/** Runs the retrieval function here, beside the HTTP tools (as the do-not-call one is). */
export function withKnowledge(runner: ToolRunner, service: CallKnowledgeService | undefined, organizationId: string, knowledge: CallKnowledge | null): ToolRunner {
  if (!knowledge || !service) return runner;
  return {
    async run(tool, args, signal) {
      if (tool.id !== KNOWLEDGE_TOOL_ID) return runner.run(tool, args, signal);
      const query = typeof args.query === "string" ? args.query.trim().slice(0, 1000) : "";
      if (!query) return { success: false, status: 400, data: null, error: "Say what to search for in `query`." };
      const result = await service.searchForCall(organizationId, knowledge.baseIds, query, knowledge.passages);
      return {
        success: true,
        status: 200,
        data: {
          query,
          passages: result.passages.map((p) => ({ source: p.location ? `${p.document_name} (${p.location})` : p.document_name, document_id: p.document_id, text: p.text, score: Number(p.score.toFixed(4)) })),
          ...(result.passages.length === 0 ? { note: "Nothing in the documents answers this: say you do not know rather than guess." } : {}),
        },
      };
    },
  };
}
