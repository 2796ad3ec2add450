import { useQuery } from "@tanstack/react-query";
import { TriangleAlert } from "lucide-react";
import { REACHABILITY_TEXTS, type Reachability } from "@shared/reachability";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { cn } from "@/lib/utils";

export function useReachability(enabled = true) {
  return useQuery({ queryKey: queryKeys.reachability, queryFn: () => api<Reachability>("/api/telephony/reachability"), enabled, staleTime: 5 * 60_000 });
}

/** A warning when Twilio can never reach PUBLIC_URL (nothing when it can, or while unknown). */
export function ReachabilityWarning({ className }: { className?: string }) {
  const reachability = useReachability();
  const problem = reachability.data?.problem;
  if (!problem) return null;
  return (
    <div role="alert" className={cn("flex gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950", className)} data-testid="reachability-warning">
      <TriangleAlert className="mt-0.5 size-5 shrink-0 text-amber-600" aria-hidden="true" />
      <div className="grid gap-1">
        <p className="font-medium">{REACHABILITY_TEXTS.title}</p>
        <p>{problem}</p>
        <p>{REACHABILITY_TEXTS.fix}</p>
      </div>
    </div>
  );
}
