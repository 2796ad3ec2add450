import { Link } from "react-router";
import { BrandLogo } from "@/components/brand-logo";
import { Button } from "@/components/ui/button";

export function LandingPage() {
  return (
    <main className="flex min-h-svh flex-col items-center justify-center gap-6 px-4 text-center">
      <BrandLogo className="text-2xl" />
      <h1 className="max-w-2xl text-4xl font-bold tracking-tight">Turn your contact center into a command center</h1>
      <div className="flex gap-3">
        <Button asChild>
          <Link to="/request-a-demo">Request a demo</Link>
        </Button>
        <Button asChild variant="outline">
          <Link to="/login">Login</Link>
        </Button>
      </div>
    </main>
  );
}
