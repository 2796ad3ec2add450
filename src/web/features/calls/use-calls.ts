import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { CALL_MESSAGES, CALLS_REFRESH_MS, type CallRecord } from "@shared/call-records";
import { api } from "@/lib/api";

export const callsQueryKey = ["calls"] as const;

async function fetchCalls(): Promise<CallRecord[]> {
  try {
    return await api<CallRecord[]>("/api/calls");
  } catch (err) {
    // Spec §8: call fetch failures are reported on the console only; the page offers a quiet retry.
    console.error(CALL_MESSAGES.fetchFailed, err);
    throw err;
  }
}

/** The user's calls, newest first; re-read every few seconds while any of them is in progress. */
export function useCalls() {
  return useQuery({
    queryKey: callsQueryKey,
    queryFn: fetchCalls,
    refetchInterval: (query) => (query.state.data?.some((call) => !call.end_time) ? CALLS_REFRESH_MS : false),
  });
}

/** The current time, advancing every second while `active` (a call in progress); frozen otherwise. */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const tick = () => setNow(Date.now());
    tick();
    const timer = setInterval(tick, 1000);
    return () => clearInterval(timer);
  }, [active]);
  return now;
}
