import { VERSION_MESSAGES } from "@shared/versions";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/lib/utils";
import { useDraftState } from "./use-versions";

/** "Draft — callers hear v3" while the draft holds changes callers do not hear yet; nothing otherwise. */
export function DraftBadge({ assistantId, className }: { assistantId: string; className?: string }) {
  const state = useDraftState(assistantId);
  if (!state?.draft_changed || state.live_version === null) return null;
  return (
    <Badge variant="outline" className={cn("border-amber-300 bg-amber-50 font-normal text-amber-900", className)} data-testid="draft-badge">
      {VERSION_MESSAGES.draftBadge(state.live_version)}
    </Badge>
  );
}
