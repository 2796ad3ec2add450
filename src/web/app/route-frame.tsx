import { Component, lazy, Suspense, useEffect, useState, type ErrorInfo, type ReactNode } from "react";
import { useLocation, useNavigationType } from "react-router";

// sonner is only fetched once a page that can toast is shown: the landing page never does,
// and keeping it out of the entry chunk keeps a visitor's first download small.
const Toaster = lazy(() => import("@/components/ui/sonner").then((m) => ({ default: m.Toaster })));

/** The toast outlet, mounted from the first page that isn't the landing page onwards. */
export function DeferredToaster() {
  const { pathname } = useLocation();
  const [needed, setNeeded] = useState(false);
  // Decided after the first paint, so fetching it never delays a page's first content. Once
  // mounted it stays, so a toast raised just before navigating home is still shown.
  useEffect(() => {
    if (needed || pathname === "/") return;
    const timer = setTimeout(() => setNeeded(true), 0);
    return () => clearTimeout(timer);
  }, [needed, pathname]);
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
      {/* Bottom left: clear of the side panels' headers and action buttons, which sit on the right. */}
      <Toaster richColors closeButton position="bottom-left" />
    </Suspense>
  );
}

/** A new page starts at its top; back and forward keep the browser's own scroll restoration. */
export function ScrollToTop() {
  const { pathname } = useLocation();
  const navigationType = useNavigationType();
  useEffect(() => {
    if (navigationType !== "POP") window.scrollTo(0, 0);
  }, [pathname, navigationType]);
  return null;
}

interface BoundaryState {
  error: unknown;
  pathname: string | null;
}

class Boundary extends Component<{ pathname: string; children: ReactNode }, BoundaryState> {
  state: BoundaryState = { error: null, pathname: null };

  static getDerivedStateFromError(error: unknown): Partial<BoundaryState> {
    return { error };
  }

  // Navigating elsewhere clears the error, without remounting the tree on every navigation.
  static getDerivedStateFromProps(props: { pathname: string }, state: BoundaryState): Partial<BoundaryState> | null {
    if (state.error === null) return state.pathname === props.pathname ? null : { pathname: props.pathname };
    return state.pathname === props.pathname ? null : { error: null, pathname: props.pathname };
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error("Page failed to render:", error, info.componentStack);
  }

  render() {
    if (this.state.error === null) return this.props.children;
    return (
      <main className="flex min-h-svh flex-col items-center justify-center gap-4 bg-muted/40 px-4 text-center">
        <h1 className="text-3xl font-semibold tracking-tight">Something went wrong</h1>
        <p className="max-w-md text-muted-foreground">This page failed to load. Reloading usually fixes it.</p>
        <div className="flex gap-6">
          <button type="button" onClick={() => window.location.reload()} className="font-medium text-primary underline underline-offset-4">
            Reload
          </button>
          <a href="/" className="font-medium text-primary underline underline-offset-4">
            Return to Home
          </a>
        </div>
      </main>
    );
  }
}

/** A page that crashes, or whose chunk fails to download after a deploy, shows a way out rather than a blank screen. */
export function RouteErrorBoundary({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return <Boundary pathname={pathname}>{children}</Boundary>;
}
