import { Navigate, Outlet, useLocation, useSearchParams } from "react-router";
import { Spinner } from "@/components/ui/spinner";
import { safeNextPath } from "@/lib/next-path";
import { useSession } from "@/lib/session";

function FullPageSpinner() {
  return (
    <div className="flex min-h-svh items-center justify-center" aria-busy="true">
      <Spinner />
    </div>
  );
}

/** App pages: only for signed-in users; others go to /login. */
export function RequireAuth() {
  const { data: user, isPending } = useSession();
  const location = useLocation();
  if (isPending) return <FullPageSpinner />;
  if (!user) return <Navigate to="/login" replace state={{ from: location.pathname }} />;
  return <Outlet />;
}

/** Login and sign-up: a signed-in user has nothing to do there (but goes on to `next`, an invitation). */
export function GuestOnly() {
  const { data: user, isPending } = useSession();
  const [params] = useSearchParams();
  if (isPending) return <FullPageSpinner />;
  if (user) return <Navigate to={safeNextPath(params.get("next")) ?? "/assistants"} replace />;
  return <Outlet />;
}
