import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Link, useNavigate, useSearchParams } from "react-router";
import { ROLE_LABELS } from "@shared/roles";
import { TEAM_MESSAGES, type InvitationPreview } from "@shared/team";
import { INVITE_PATH } from "@shared/page-paths";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/sonner";
import { Spinner } from "@/components/ui/spinner";
import { api } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import { withNext } from "@/lib/next-path";
import { useSession, useSignOut } from "@/lib/session";
import { AuthCard } from "./auth-card";
import { ErrorLine } from "@/components/form-dialog";

const linkClass = "font-medium text-primary underline-offset-4 hover:underline";

/**
 * Where an invitation link lands (`/invite?token=…`), naming the address it is for. Signed in with
 * that address: join with one button; with another: why not, and a way to switch. Otherwise: log
 * in or sign up with the invited address, and come back here afterwards (`?next=`).
 */
export function InvitePage() {
  const [params] = useSearchParams();
  const token = params.get("token") ?? "";
  const here = `${INVITE_PATH}?token=${encodeURIComponent(token)}`;
  const { data: user, isPending } = useSession();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [error, setError] = useState<string | null>(null);
  const [joining, setJoining] = useState(false);
  const signOut = useSignOut();
  // Names the team and the role; an unusable link says why before anyone signs in.
  const preview = useQuery({
    queryKey: queryKeys.invitationPreview(token),
    queryFn: () => api<InvitationPreview>(`/api/invitations/preview?token=${encodeURIComponent(token)}`),
    enabled: Boolean(token),
    retry: false,
  });

  const join = async () => {
    setJoining(true);
    setError(null);
    try {
      await api<{ organization_id: string }>("/api/team/invitations/accept", { body: { token } });
      // The session now works in the new organisation: nothing cached belongs to it.
      await queryClient.resetQueries();
      toast.success(TEAM_MESSAGES.joined);
      navigate("/assistants");
    } catch (err) {
      const message = err instanceof Error ? err.message : TEAM_MESSAGES.invitationInvalid;
      setError(message);
      toast.error(TEAM_MESSAGES.acceptFailed, { description: message });
    } finally {
      setJoining(false);
    }
  };

  let body;
  if (!token || preview.isError) {
    body = <ErrorLine message={preview.error instanceof Error ? preview.error.message : TEAM_MESSAGES.invitationInvalid} />;
  } else if (isPending || preview.isPending) {
    body = (
      <div className="flex justify-center py-4">
        <Spinner />
      </div>
    );
  } else if (user && user.email.toLowerCase() !== preview.data.email.toLowerCase()) {
    // The server would refuse: say why before anyone presses Join, and offer the way out.
    body = (
      <div className="grid gap-4">
        <p role="alert" className="text-sm" data-testid="invite-wrong-account">
          {TEAM_MESSAGES.wrongAccount(user.email, preview.data.email)}
        </p>
        <Button variant="outline" onClick={() => void signOut()} className="w-full">
          {TEAM_MESSAGES.signOutToAccept}
        </Button>
      </div>
    );
  } else if (user) {
    body = (
      <div className="grid gap-4">
        <p className="text-sm text-muted-foreground">{TEAM_MESSAGES.signedInAs(user.email)}</p>
        <Button onClick={() => void join()} disabled={joining} className="w-full">
          {joining ? "Joining..." : `Join ${preview.data.organization}`}
        </Button>
        <ErrorLine message={error} />
      </div>
    );
  } else {
    body = (
      <div className="grid gap-4">
        <p className="text-sm font-medium" data-testid="invited-address">
          {TEAM_MESSAGES.invitedAddress(preview.data.email)}
        </p>
        <p className="text-sm text-muted-foreground">{TEAM_MESSAGES.inviteSignInPrompt}</p>
        <Button asChild className="w-full">
          <Link to={withNext("/signup", here)}>Sign up</Link>
        </Button>
        <Button asChild variant="outline" className="w-full">
          <Link to={withNext("/login", here)}>Log in</Link>
        </Button>
      </div>
    );
  }

  return (
    <AuthCard
      title="Join a team"
      description={preview.data ? `You are invited to join ${preview.data.organization} as ${ROLE_LABELS[preview.data.role]}.` : TEAM_MESSAGES.invitePrompt}
      footer={
        <Link to={user ? "/assistants" : "/"} className={linkClass}>
          {user ? "Go to the app" : "Switchboard home"}
        </Link>
      }
    >
      {body}
    </AuthCard>
  );
}
