import { ROLE_LABELS } from "@shared/roles";
import { TEAM_MESSAGES, type TeamInvitation } from "@shared/team";
import { ActionTable } from "@/components/table-view";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/sonner";
import { TableCell } from "@/components/ui/table";
import { day } from "./team-format";
import { useRevokeInvitation } from "./use-team";

/** Invitations not yet accepted, each revocable (its link stops working at once). */
export function InvitationsTable({ invitations }: { invitations: TeamInvitation[] }) {
  const revoke = useRevokeInvitation();
  const onRevoke = (invitation: TeamInvitation) =>
    revoke.mutate(invitation.id, {
      onSuccess: () => toast.success(TEAM_MESSAGES.invitationRevoked),
      onError: (err) => toast.error(TEAM_MESSAGES.revokeFailed, { description: err.message }),
    });
  return (
    <ActionTable
      label="Pending invitations"
      heads={["E-mail", "Role", "Invited by", "Expires"]}
      actions
      rows={invitations}
      rowTestId="invitation-row"
      cells={(invitation) => (
        <>
          <TableCell>{invitation.email}</TableCell>
          <TableCell>{ROLE_LABELS[invitation.role]}</TableCell>
          <TableCell>{invitation.invited_by ?? "—"}</TableCell>
          <TableCell>{day(invitation.expires_at)}</TableCell>
        </>
      )}
      action={(invitation) => (
        <Button size="sm" variant="ghost" disabled={revoke.isPending} onClick={() => onRevoke(invitation)}>
          Revoke
        </Button>
      )}
    />
  );
}
