import { useEffect } from "react";
import { Link, useLocation } from "react-router";

export function NotFoundPage() {
  const location = useLocation();
  useEffect(() => {
    console.error("404 Error: User attempted to access non-existent route:", location.pathname);
  }, [location.pathname]);
  return (
    <main className="flex min-h-svh flex-col items-center justify-center gap-4 bg-muted/40 px-4 text-center">
      <h1 className="text-6xl font-bold tracking-tight">404</h1>
      <p className="text-xl text-muted-foreground">Oops! Page not found</p>
      <Link to="/" className="font-medium text-primary underline underline-offset-4 hover:text-primary/80">
        Return to Home
      </Link>
    </main>
  );
}
