import { can } from "@shared/roles";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Separator } from "@/components/ui/separator";
import { useMembership } from "@/lib/use-membership";
import { InvitationsTable } from "./invitations-table";
import { InviteForm } from "./invite-form";
import { MembersTable } from "./members-table";
import { OrganizationNameForm } from "./organization-name-form";
import { useTeamMembers } from "@/lib/use-membership";
import { useTeamInvitations } from "./use-team";

/** Settings → Team: the organisation's name, members and invitations; managing them is for admins. */
export function TeamCard() {
  const membership = useMembership();
  const role = membership.data?.role;
  const admin = role ? can(role, "team") : false;
  const members = useTeamMembers();
  const invitations = useTeamInvitations(admin);
  if (!membership.data || !role) return null;
  const pending = invitations.data ?? [];

  return (
    <Card data-testid="team-card">
      <CardHeader>
        <CardTitle>Team</CardTitle>
        <CardDescription>{admin ? "Who works in this organisation, and what each of them may do." : `You are a member of ${membership.data.organization.name}.`}</CardDescription>
      </CardHeader>
      <CardContent className="grid gap-6">
        {admin && <OrganizationNameForm name={membership.data.organization.name} />}
        {members.data && <MembersTable members={members.data} role={role} />}
        {admin && (
          <>
            <Separator />
            <div className="grid gap-3">
              <h2 className="font-medium">Invite a member</h2>
              <InviteForm role={role} />
            </div>
            {pending.length > 0 && (
              <div className="grid gap-3">
                <h2 className="font-medium">Pending invitations</h2>
                <InvitationsTable invitations={pending} />
              </div>
            )}
          </>
        )}
      </CardContent>
    </Card>
  );
}
