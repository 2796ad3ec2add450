import { useEffect } from "react";
import { Link, useLocation } from "react-router";
import { usePageTitle } from "@/hooks/use-page-title";
import { cn } from "@/lib/utils";

/** `inApp`: shown inside the signed-in frame (navigation kept), not as a page of its own. */
export function NotFoundPage({ inApp = false }: { inApp?: boolean }) {
  const location = useLocation();
  usePageTitle("Page not found");
  useEffect(() => {
    console.error("404 Error: User attempted to access non-existent route:", location.pathname);
  }, [location.pathname]);
  return (
    <main className={cn("flex flex-col items-center justify-center gap-4 px-4 text-center", inApp ? "py-24" : "min-h-svh bg-muted/40")}>
      <h1 className="text-6xl font-bold tracking-tight">404</h1>
      <p className="text-xl text-muted-foreground">Oops! Page not found</p>
      <Link to={inApp ? "/assistants" : "/"} className="font-medium text-primary underline underline-offset-4 hover:text-primary/80">
        Return to Home
      </Link>
    </main>
  );
}
