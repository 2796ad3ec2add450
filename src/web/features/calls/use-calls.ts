import { keepPreviousData, useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  CALL_MESSAGES,
  CALLS_REFRESH_MS,
  callFiltersQuery,
  type CallFilters,
  type CallPage,
  type CallRecord,
  type CallStats,
} from "@shared/call-records";
import type { CallAnalysis } from "@shared/analysis";
import { PAGE_LIMIT_DEFAULT } from "@shared/pages";
import type { CallReplay, SaveCallAsTestInput } from "@shared/replay";
import type { Scenario } from "@shared/scenarios";
import type { CancelledCall } from "@shared/outbound";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";

const callsQueryKey = queryKeys.calls;

async function logged<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (err) {
    // Spec §8: call fetch failures are reported on the console only; the page offers a quiet retry.
    console.error(CALL_MESSAGES.fetchFailed, err);
    throw err;
  }
}

/** Pages of the filtered calls, newest first; all loaded pages are re-read every few seconds while any call is in progress. */
export function useCalls(filters: CallFilters) {
  return useInfiniteQuery({
    queryKey: [...callsQueryKey, "list", filters],
    queryFn: ({ pageParam }) =>
      logged(() => api<CallPage>(`/api/calls?${callFiltersQuery({ ...filters, limit: PAGE_LIMIT_DEFAULT, cursor: pageParam })}`)),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (query.state.data?.pages.some((p) => p.data.some((call) => !call.end_time)) ? CALLS_REFRESH_MS : false),
  });
}

/** The whole record behind a row (transcript, logs, recording address, cost breakdown). */
export function useCall(id: string | null) {
  return useQuery({
    queryKey: [...callsQueryKey, "one", id],
    queryFn: () => logged(() => api<CallRecord>(`/api/calls/${id}`)),
    enabled: id !== null,
    // Also while its analysis runs, so the result appears without a reload.
    refetchInterval: (query) => (query.state.data && (!query.state.data.end_time || query.state.data.analysis?.status === "pending") ? CALLS_REFRESH_MS : false),
  });
}

/** "Run again" / "Retry": the call's analysis with the assistant's current settings. */
export function useRunAnalysis() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<CallAnalysis>(`/api/calls/${id}/analysis`, { method: "POST", body: {} }),
    onSuccess: () => client.invalidateQueries({ queryKey: callsQueryKey }),
  });
}

/** The summary cards and the chart, for the same filters as the list (the search aside). */
export function useCallStats(filters: CallFilters) {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { q: _q, status: _status, ...statsFilters } = filters;
  return useQuery({
    queryKey: [...callsQueryKey, "stats", statsFilters, tz],
    queryFn: () => logged(() => api<CallStats>(`/api/calls/stats?${callFiltersQuery({ ...statsFilters, tz })}`)),
    placeholderData: keepPreviousData,
  });
}

export function useDeleteCall() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<void>(`/api/calls/${id}`, { method: "DELETE" }),
    onSuccess: () => client.invalidateQueries({ queryKey: callsQueryKey }),
  });
}

/** "Replay against draft": the call's caller turns said to the assistant's draft (nothing is stored). */
export function useReplayCall() {
  return useMutation({
    mutationFn: (id: string) => api<CallReplay>(`/api/calls/${id}/replay`, { method: "POST", body: {} }),
  });
}

/** "Save as test": a scenario of the call's assistant with the call's caller turns. */
export function useSaveCallAsTest() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ callId, input }: { callId: string; input: SaveCallAsTestInput }) => api<Scenario>(`/api/calls/${callId}/scenario`, { method: "POST", body: input }),
    onSuccess: (scenario) => client.invalidateQueries({ queryKey: queryKeys.scenarios(scenario.assistant_id) }),
  });
}

/** "Cancel call": an outbound call still queued or ringing stops before anyone answers. */
export function useCancelCall() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => api<CancelledCall>(`/api/calls/${id}/cancel`, { method: "POST", body: {} }),
    onSettled: () => Promise.all([client.invalidateQueries({ queryKey: callsQueryKey }), client.invalidateQueries({ queryKey: queryKeys.campaigns })]),
  });
}
