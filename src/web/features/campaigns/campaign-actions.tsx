import { useState } from "react";
import { CAMPAIGN_ACTION_LABELS, CAMPAIGN_PAGE_TEXTS as T, campaignActions, type Campaign, type CampaignAction } from "@shared/campaigns";
import { ConfirmDialog } from "@/components/confirm-dialog";
import { AlertDialogAction } from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { toast, toastFailure } from "@/components/ui/sonner";
import { useCampaignAction } from "./use-campaigns";

/** Start, Pause, Resume, Cancel: those the campaign's status allows (the server's transitions). Cancel asks first. */
export function CampaignActions({ campaign }: { campaign: Campaign }) {
  const act = useCampaignAction(campaign.id);
  const [confirming, setConfirming] = useState(false);
  const run = async (action: CampaignAction) => {
    try {
      await act.mutateAsync(action);
      toast.success(T.actionDone[action]);
    } catch (err) {
      toastFailure(T.actionFailed, err);
    }
  };
  const actions = campaignActions(campaign.status);
  if (actions.length === 0) return null;
  return (
    <div className="flex gap-2">
      {actions.map((action) => (
        <Button
          key={action}
          variant={action === "cancel" ? "outline" : "default"}
          disabled={act.isPending}
          onClick={() => (action === "cancel" ? setConfirming(true) : void run(action))}
        >
          {CAMPAIGN_ACTION_LABELS[action]}
        </Button>
      ))}
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={<>{CAMPAIGN_ACTION_LABELS.cancel}?</>}
        description={T.cancelConfirm}
        cancelLabel="Keep it"
        action={<AlertDialogAction onClick={() => void run("cancel")}>{CAMPAIGN_ACTION_LABELS.cancel}</AlertDialogAction>}
      />
    </div>
  );
}
