import { format } from "date-fns";
import { CAMPAIGN_STATUS_LABELS, type CampaignStatus } from "@shared/campaigns";
import { Badge } from "@/components/ui/badge";

const VARIANT: Record<CampaignStatus, "muted" | "warning" | "success" | "secondary" | "destructive" | "outline"> = {
  draft: "muted",
  waiting: "warning",
  running: "success",
  paused: "secondary",
  completed: "outline",
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
