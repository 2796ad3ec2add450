import { useState } from "react";
import { ROLE_LABELS, type Role } from "@shared/roles";
import { TEAM_MESSAGES, type TeamMember } from "@shared/team";
import { TableHeads } from "@/components/table-view";
import { AlertDialog, AlertDialogAction, AlertDialogCancel, AlertDialogContent, AlertDialogDescription, AlertDialogFooter, AlertDialogHeader, AlertDialogTitle } from "@/components/ui/alert-dialog";
import { Button } from "@/components/ui/button";
import { OptionSelect } from "@/components/option-select";
import { toast, toastFailure } from "@/components/ui/sonner";
import { Table, TableBody, TableCell, TableRow } from "@/components/ui/table";
import { assignableRoles, day, mayManage } from "./team-format";
import { useChangeRole, useRemoveMember } from "./use-team";

const failed = (title: string) => (err: unknown) => toastFailure(title, err);

/** The organisation's members; admins change roles and remove (owners alone touch owners). */
export function MembersTable({ members, role }: { members: TeamMember[]; role: Role }) {
  const changeRole = useChangeRole();
  const remove = useRemoveMember();
  const [removing, setRemoving] = useState<TeamMember | null>(null);
  const options = assignableRoles(role);

  const onRole = (member: TeamMember, next: Role) =>
    changeRole.mutate({ userId: member.user_id, role: next }, { onSuccess: () => toast.success(TEAM_MESSAGES.roleChanged), onError: failed(TEAM_MESSAGES.changeRoleFailed) });
  const onRemove = (member: TeamMember) =>
    remove.mutate(member.user_id, { onSuccess: () => toast.success(TEAM_MESSAGES.memberRemoved), onError: failed(TEAM_MESSAGES.removeFailed) });

  return (
    <>
      <Table aria-label="Members">
        <TableHeads labels={["Name", "E-mail", "Role", "Joined"]} actions />
        <TableBody>
          {members.map((member) => {
            const manageable = mayManage(role, member.role);
            return (
              <TableRow key={member.user_id} data-testid="member-row">
                <TableCell>{member.name}</TableCell>
                <TableCell>{member.email}</TableCell>
                <TableCell>
                  {manageable ? (
                    <OptionSelect
                      size="sm"
                      aria-label={`Role of ${member.name}`}
                      className="w-36"
                      value={member.role}
                      onValueChange={(next) => onRole(member, next as Role)}
                      options={options.map((r) => ({ value: r, label: ROLE_LABELS[r] }))}
                    />
                  ) : (
                    ROLE_LABELS[member.role]
                  )}
                </TableCell>
                <TableCell>{day(member.joined_at)}</TableCell>
                <TableCell className="text-right">
                  {manageable && (
                    <Button size="sm" variant="ghost" onClick={() => setRemoving(member)}>
                      Remove
                    </Button>
                  )}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
      <AlertDialog open={removing !== null} onOpenChange={(open) => !open && setRemoving(null)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Remove member?</AlertDialogTitle>
            <AlertDialogDescription>
              {removing?.name} ({removing?.email}) will lose access to this organisation at once.
            </AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Cancel</AlertDialogCancel>
            <AlertDialogAction onClick={() => removing && onRemove(removing)}>Remove</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </>
  );
}
