import { format } from "date-fns";
import { CAMPAIGN_STATUS_LABELS, type CampaignStatus } from "@shared/campaigns";
import { Badge } from "@/components/ui/badge";

// "muted" is too faint for text this small (axe: colour contrast).
const VARIANT: Record<CampaignStatus, "warning" | "success" | "secondary" | "destructive" | "outline" | "default"> = {
  draft: "secondary",
  waiting: "warning",
  running: "success",
  paused: "outline",
  completed: "default",
  cancelled: "destructive",
};

export function CampaignStatusBadge({ status, title }: { status: CampaignStatus; title?: string | null }) {
  return (
    <Badge variant={VARIANT[status]} title={title ?? undefined} data-testid="campaign-status">
      {CAMPAIGN_STATUS_LABELS[status]}
    </Badge>
  );
}

export const shortDateTime = (iso: string) => format(new Date(iso), "d MMM yyyy, HH:mm");
