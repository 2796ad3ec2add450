import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { Scenario, ScenarioInput, ScenarioUpdate, TestRun } from "@shared/scenarios";
import { api, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const base = (id: string) => `/api/assistants/${encodeURIComponent(id)}`;
/** How often a running test run is read again. */
const RUN_POLL_MS = 1000;

export function useScenarios(assistantId: string) {
  return useQuery({ queryKey: queryKeys.scenarios(assistantId), queryFn: () => apiList<Scenario>(`${base(assistantId)}/scenarios`) });
}

export function useSaveScenario(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, input }: { id: string | null; input: ScenarioInput | ScenarioUpdate }) =>
      id
        ? api<Scenario>(`${base(assistantId)}/scenarios/${encodeURIComponent(id)}`, { method: "PATCH", body: input })
        : api<Scenario>(`${base(assistantId)}/scenarios`, { method: "POST", body: input }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.scenarios(assistantId) }),
  });
}

export function useDeleteScenario(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`${base(assistantId)}/scenarios/${encodeURIComponent(id)}`, { method: "DELETE" }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.scenarios(assistantId) }),
  });
}

/** The assistant's latest run (any version), read again while it runs. */
export function useLatestTestRun(assistantId: string) {
  return useQuery({
    queryKey: queryKeys.latestTestRun(assistantId),
    queryFn: () => api<TestRun | null>(`${base(assistantId)}/test-runs/latest`),
    refetchInterval: (query) => (query.state.data?.status === "running" ? RUN_POLL_MS : false),
  });
}

/** One run (a publish waits on the draft's), read again while it runs. */
export function useTestRun(runId: string | null) {
  return useQuery({
    queryKey: queryKeys.testRun(runId ?? ""),
    queryFn: () => api<TestRun>(`/api/test-runs/${encodeURIComponent(runId!)}`),
    enabled: runId !== null,
    refetchInterval: (query) => (query.state.data?.status === "running" ? RUN_POLL_MS : false),
  });
}

export function useStartTestRun(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => api<{ id: string }>(`${base(assistantId)}/test-runs`, { method: "POST", body: {} }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.latestTestRun(assistantId) }),
  });
}

export function useCancelTestRun(assistantId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (runId: string) => api<TestRun>(`/api/test-runs/${encodeURIComponent(runId)}/cancel`, { method: "POST", body: {} }),
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: queryKeys.latestTestRun(assistantId) }),
  });
}
