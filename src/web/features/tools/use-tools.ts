import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Tool, ToolExecutionResponse, ToolInput, ToolUpdate } from "@shared/tools";
import { api, apiList } from "@/lib/api";
import { listCreated, listDeleted, listUpdated } from "@/lib/list-cache";
import { queryKeys } from "@/lib/query-keys";

// The tools key is shared with the Assistants page's tool picker, so a change here shows up there
// at once; assistants show their tools' names and drop deleted ones, so a tool change makes them stale.
const { tools: toolsQueryKey, assistants: assistantsQueryKey } = queryKeys;

const toolPath = (id: string) => `/api/tools/${encodeURIComponent(id)}`;

export function useTools() {
  return useQuery({ queryKey: toolsQueryKey, queryFn: () => apiList<Tool>("/api/tools") });
}

export function useCreateTool() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: ToolInput) => api<Tool>("/api/tools", { method: "POST", body: input }),
    onSuccess: (created) => {
      listCreated(queryClient, toolsQueryKey, created);
    },
  });
}

export function useUpdateTool() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, patch }: { id: string; patch: ToolUpdate }) => api<Tool>(toolPath(id), { method: "PATCH", body: patch }),
    onSuccess: (updated) => {
      listUpdated(queryClient, toolsQueryKey, updated);
      void queryClient.invalidateQueries({ queryKey: assistantsQueryKey });
    },
  });
}

export function useDeleteTool() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<null>(toolPath(id), { method: "DELETE" }),
    onSuccess: (_, id) => {
      listDeleted(queryClient, toolsQueryKey, id);
      void queryClient.invalidateQueries({ queryKey: assistantsQueryKey });
    },
  });
}

export function useExecuteTool() {
  return useMutation({
    mutationFn: ({ id, parameters }: { id: string; parameters: Record<string, unknown> }) =>
      api<ToolExecutionResponse>(`${toolPath(id)}/execute`, { method: "POST", body: { parameters } }),
  });
}
