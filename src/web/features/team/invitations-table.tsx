import { ROLE_LABELS } from "@shared/roles";
import { TEAM_MESSAGES, type TeamInvitation } from "@shared/team";
import { TableHeads } from "@/components/table-view";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/sonner";
import { Table, TableBody, TableCell, TableRow } from "@/components/ui/table";
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
    <Table aria-label="Pending invitations">
      <TableHeads labels={["E-mail", "Role", "Invited by", "Expires"]} actions />
      <TableBody>
        {invitations.map((invitation) => (
          <TableRow key={invitation.id} data-testid="invitation-row">
            <TableCell>{invitation.email}</TableCell>
            <TableCell>{ROLE_LABELS[invitation.role]}</TableCell>
            <TableCell>{invitation.invited_by ?? "—"}</TableCell>
            <TableCell>{day(invitation.expires_at)}</TableCell>
            <TableCell className="text-right">
              <Button size="sm" variant="ghost" disabled={revoke.isPending} onClick={() => onRevoke(invitation)}>
                Revoke
              </Button>
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
}
