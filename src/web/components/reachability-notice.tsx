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

/**
 * Before anyone dials (Call dialog, campaign form and page): why calls are refused while Twilio
 * cannot reach this server, or the warning when TWILIO_API_BASE points elsewhere. `refused` is
 * true while the server would answer 409, so the page can disable what would dial.
 */
export function useDialling() {
  const data = useReachability().data;
  return { refused: data?.dialling === "refused", data };
}

export function DiallingNotice({ className }: { className?: string }) {
  const { data } = useDialling();
  if (!data?.dialling_note) return null;
  const refused = data.dialling === "refused";
  return (
    <div
      role={refused ? "alert" : "status"}
      className={cn("flex gap-3 rounded-lg border p-3 text-sm", refused ? "border-destructive/40 bg-destructive/5 text-destructive" : "border-amber-300 bg-amber-50 text-amber-950", className)}
      data-testid="dialling-notice"
    >
      <TriangleAlert className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
      <div className="grid gap-1">
        <p className="font-medium">{refused ? REACHABILITY_TEXTS.dialRefusedTitle : REACHABILITY_TEXTS.dialWarnedTitle}</p>
        <p>{data.dialling_note}</p>
      </div>
    </div>
  );
}
