import { useMutation, useQuery } from "@tanstack/react-query";
import type { Tool, ToolExecutionResponse, ToolInput, ToolUpdate } from "@shared/tools";
import { api, apiList } from "@/lib/api";
import { useCreateInList, useDeleteFromList, useUpdateInList } from "@/lib/list-mutations";
import { queryKeys } from "@/lib/query-keys";

// The tools key is shared with the Assistants page's tool picker, so a change here shows up there
// at once; assistants show their tools' names and drop deleted ones, so a tool change makes them stale.
const { tools: toolsQueryKey, assistants: assistantsQueryKey } = queryKeys;

const toolPath = (id: string) => `/api/tools/${encodeURIComponent(id)}`;

export function useTools() {
  return useQuery({ queryKey: toolsQueryKey, queryFn: () => apiList<Tool>("/api/tools") });
}

const tools = { path: "/api/tools", key: toolsQueryKey };

export const useCreateTool = () => useCreateInList<Tool, ToolInput>(tools);
export const useUpdateTool = () => useUpdateInList<Tool, ToolUpdate>(tools, [assistantsQueryKey]);
export const useDeleteTool = () => useDeleteFromList(tools, [assistantsQueryKey]);

export function useExecuteTool() {
  return useMutation({
    mutationFn: ({ id, parameters }: { id: string; parameters: Record<string, unknown> }) =>
      api<ToolExecutionResponse>(`${toolPath(id)}/execute`, { method: "POST", body: { parameters } }),
  });
}
