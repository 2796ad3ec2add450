import { useQuery } from "@tanstack/react-query";
import type { Assistant, AssistantDefaults, AssistantInput, AssistantUpdate } from "@shared/assistants";
import type { Tool } from "@shared/tools";
import { api, apiList } from "@/lib/api";
import { useCreateInList, useDeleteFromList, useUpdateInList } from "@/lib/list-mutations";
import { queryKeys } from "@/lib/query-keys";

// The tools key is the Tools page's, so a tool created there shows up in the picker at once.
const { assistants: assistantsQueryKey, assistantDefaults: defaultsQueryKey, tools: toolsQueryKey } = queryKeys;

export type ToolOption = Pick<Tool, "id" | "name" | "type">;

export function useAssistants() {
  return useQuery({ queryKey: assistantsQueryKey, queryFn: () => apiList<Assistant>("/api/assistants") });
}

export function useAssistantDefaults() {
  return useQuery({
    queryKey: defaultsQueryKey,
    queryFn: () => api<AssistantDefaults>("/api/assistants/defaults"),
    // Server configuration: it changes only with a restart.
    staleTime: Infinity,
  });
}

/** The signed-in user's tools: the server lists only their own, as spec §6 requires of the picker. */
export function useToolOptions() {
  return useQuery({ queryKey: toolsQueryKey, queryFn: () => apiList<ToolOption>("/api/tools") });
}

const assistants = { path: "/api/assistants", key: assistantsQueryKey };

// The checklist's "Create an assistant" is ticked from the list.
export const useCreateAssistant = () => useCreateInList<Assistant, AssistantInput>(assistants, [queryKeys.gettingStarted]);
export const useUpdateAssistant = () => useUpdateInList<Assistant, AssistantUpdate>(assistants);
// Linked phone numbers became unassigned and past calls lost their link: their lists are stale.
export const useDeleteAssistant = () => useDeleteFromList(assistants, [queryKeys.phoneNumbers, queryKeys.calls]);
