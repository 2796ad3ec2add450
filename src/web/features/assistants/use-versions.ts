import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { callFiltersQuery, type CallStats } from "@shared/call-records";
import type { AssistantVersion, AssistantVersionPage, AssistantVersionSummary, DraftState } from "@shared/versions";
import type { PublishTesting } from "@shared/scenarios";
import { api, apiList, apiWholePage } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const base = (id: string) => `/api/assistants/${encodeURIComponent(id)}`;

export function useVersions(assistantId: string) {
  return useQuery({ queryKey: queryKeys.versions(assistantId), queryFn: () => apiWholePage<AssistantVersionPage>(`${base(assistantId)}/versions`) });
}

export const fetchDrafts = () => apiList<DraftState>("/api/assistants/drafts");

/** Each assistant's draft state (the list, the details and the form say when callers hear an older version). */
export function useDraftState(assistantId: string): DraftState | undefined {
  return useQuery({ queryKey: queryKeys.drafts, queryFn: fetchDrafts }).data?.find((d) => d.assistant_id === assistantId);
}

/** A published version never changes: read once. */
export function useVersion(assistantId: string, n: number | null) {
  return useQuery({
    queryKey: queryKeys.version(assistantId, n ?? 0),
    queryFn: () => api<AssistantVersion>(`${base(assistantId)}/versions/${n}`),
    enabled: n !== null,
    staleTime: Infinity,
  });
}

/** The calls a version answered, for comparing versions side by side. */
export function useVersionStats(assistantId: string, n: number | null) {
  return useQuery({
    queryKey: [...queryKeys.calls, "stats", assistantId, n],
    queryFn: () => api<CallStats>(`/api/calls/stats?${callFiltersQuery({ assistant_id: assistantId, assistant_version: n ?? undefined })}`),
    enabled: n !== null,
  });
}

export function usePublishVersion(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    // 201: the new version; 202: the draft's tests run first (publish again once they are done).
    mutationFn: (body: { note: string; confirm_failures?: boolean }) => api<AssistantVersionSummary | PublishTesting>(`${base(assistantId)}/publish`, { method: "POST", body }),
    onSuccess: () => {
      invalidate(queryClient, assistantId);
      void queryClient.invalidateQueries({ queryKey: queryKeys.latestTestRun(assistantId) });
    },
  });
}

export function useRollback(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (version: number) => api<AssistantVersionSummary>(`${base(assistantId)}/rollback`, { method: "POST", body: { version } }),
    onSuccess: () => invalidate(queryClient, assistantId),
  });
}

function invalidate(queryClient: ReturnType<typeof useQueryClient>, assistantId: string) {
  void queryClient.invalidateQueries({ queryKey: queryKeys.versions(assistantId) });
  void queryClient.invalidateQueries({ queryKey: queryKeys.drafts });
  // The numbers' pages show which version they run.
  void queryClient.invalidateQueries({ queryKey: queryKeys.phoneNumbers });
}
