import type { ReactNode } from "react";
import { usePageTitle } from "@/hooks/use-page-title";
import { MarketingFooter } from "./marketing-footer";
import { MarketingHeader } from "./marketing-header";

/** The shared marketing frame. Pages start with a dark band, which the transparent top bar sits on. */
export function MarketingLayout({ title, children }: { title?: string; children: ReactNode }) {
  usePageTitle(title ?? null);

  return (
    <div className="flex min-h-svh flex-col bg-white text-zinc-900">
      <a
        href="#main"
        className="sr-only z-50 rounded-md bg-white px-4 py-2 text-sm font-semibold text-zinc-900 focus:not-sr-only focus:fixed focus:top-3 focus:left-3"
      >
        Skip to content
      </a>
      <MarketingHeader />
      <main id="main" className="flex-1">
        {children}
      </main>
      <MarketingFooter />
    </div>
  );
}
