import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Assistant, AssistantDefaults, AssistantInput, AssistantUpdate } from "@shared/assistants";
import type { Tool } from "@shared/tools";
import { api, apiList } from "@/lib/api";
import { listCreated, listDeleted, listUpdated } from "@/lib/list-cache";
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

export function useCreateAssistant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: AssistantInput) => api<Assistant>("/api/assistants", { method: "POST", body: input }),
    onSuccess: (created) => {
      // The checklist's "Create an assistant" is ticked from the list.
      void queryClient.invalidateQueries({ queryKey: queryKeys.gettingStarted });
      listCreated(queryClient, assistantsQueryKey, created);
    },
  });
}

export function useUpdateAssistant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: AssistantUpdate }) =>
      api<Assistant>(`/api/assistants/${encodeURIComponent(id)}`, { method: "PATCH", body: patch }),
    onSuccess: (updated) => {
      listUpdated(queryClient, assistantsQueryKey, updated);
    },
  });
}

export function useDeleteAssistant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(`/api/assistants/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: (_, id) => {
      listDeleted(queryClient, assistantsQueryKey, id);
      // Linked phone numbers became unassigned and past calls lost their link: their lists are stale.
      void queryClient.invalidateQueries({ queryKey: queryKeys.phoneNumbers });
      void queryClient.invalidateQueries({ queryKey: queryKeys.calls });
    },
  });
}
