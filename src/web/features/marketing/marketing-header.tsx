import { MenuIcon } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import { Link, NavLink } from "react-router";
import { LANDING_BAR_SCROLL_THRESHOLD_PX } from "@shared/marketing";
import { SwitchboardMark } from "./switchboard-mark";
import { HEADER_LINKS } from "./site-links";
import { useScrolledPast } from "./use-scrolled-past";

// The slide-out menu (Radix dialog and friends) is only fetched by visitors who open it.
const loadMobileMenu = () => import("./mobile-menu");
const MobileMenu = lazy(loadMobileMenu);

/** The marketing top bar: transparent over the hero, solid black once the page scrolls (spec §2, §9). */
export function MarketingHeader() {
  const solid = useScrolledPast(LANDING_BAR_SCROLL_THRESHOLD_PX);
  const [menuRequested, setMenuRequested] = useState(false);
  const [menuOpen, setMenuOpen] = useState(false);

  return (
    <header
      data-testid="marketing-header"
      data-solid={solid ? "true" : "false"}
      className={`fixed inset-x-0 top-0 z-40 border-b transition-colors duration-200 ${solid ? "border-white/10 bg-black" : "border-transparent bg-transparent"}`}
    >
      <div className="mx-auto flex h-16 w-full max-w-7xl items-center justify-between gap-6 px-5 sm:px-8">
        <Link to="/" aria-label="Switchboard home" className="rounded-md text-white outline-none focus-visible:ring-2 focus-visible:ring-violet-400">
          <SwitchboardMark />
        </Link>

        <nav aria-label="Main" className="hidden flex-1 items-center justify-center gap-1 md:flex">
          {HEADER_LINKS.map((link) => (
            <NavLink
              key={link.to}
              to={link.to}
              className={({ isActive }) =>
                `rounded-full px-4 py-2 text-sm font-medium transition outline-none hover:bg-white/10 hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400 ${isActive ? "text-white" : "text-zinc-300"}`
              }
            >
              {link.label}
            </NavLink>
          ))}
        </nav>

        <div className="hidden items-center gap-2 md:flex">
          <Link to="/signup" className="rounded-full px-4 py-2 text-sm font-medium text-zinc-300 transition outline-none hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400">
            Sign up
          </Link>
          <Link
            to="/login"
            className="inline-flex h-9 items-center rounded-full bg-white px-5 text-sm font-semibold text-zinc-950 transition outline-none hover:bg-zinc-200 focus-visible:ring-2 focus-visible:ring-violet-400 focus-visible:ring-offset-2 focus-visible:ring-offset-black"
          >
            Login
          </Link>
        </div>

        <button
          type="button"
          aria-label="Open menu"
          aria-haspopup="dialog"
          aria-expanded={menuOpen}
          onPointerEnter={() => void loadMobileMenu()}
          onFocus={() => void loadMobileMenu()}
          onClick={() => {
            setMenuRequested(true);
            setMenuOpen(true);
          }}
          className="-mr-2 inline-flex size-10 items-center justify-center rounded-full text-white transition outline-none hover:bg-white/10 focus-visible:ring-2 focus-visible:ring-violet-400 md:hidden"
        >
          <MenuIcon className="size-6" aria-hidden="true" />
        </button>
      </div>
      {menuRequested && (
        <Suspense fallback={null}>
          <MobileMenu open={menuOpen} onOpenChange={setMenuOpen} />
        </Suspense>
      )}
    </header>
  );
}
