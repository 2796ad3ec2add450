import { ArrowRightIcon } from "lucide-react";
import { useEffect } from "react";
import { Link } from "react-router";
import { Sheet, SheetClose, SheetContent, SheetDescription, SheetHeader, SheetTitle } from "@/components/ui/sheet";
import { useIsMobile } from "@/hooks/use-mobile";
import { HEADER_LINKS } from "./site-links";
import { primaryCta } from "./styles";

const MORE_LINKS = [
  { label: "How it works", to: "/how-it-works" },
  { label: "Pricing", to: "/pricing" },
  { label: "Industries", to: "/industries" },
  { label: "Use Cases", to: "/use-cases" },
  { label: "Contact", to: "/contact" },
  { label: "Privacy Policy", to: "/privacy-policy" },
];

/** The top bar's links below 768 px, in a panel that slides in from the right. */
export default function MobileMenu({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const isMobile = useIsMobile();
  // Widening the window past the breakpoint shows the inline links again; a leftover panel would cover them.
  useEffect(() => {
    if (!isMobile && open) onOpenChange(false);
  }, [isMobile, open, onOpenChange]);

  return (
    <Sheet open={open} onOpenChange={onOpenChange}>
      <SheetContent side="right" className="w-[min(85%,22rem)] border-white/10 bg-zinc-950 text-white">
        <SheetHeader className="px-6 pt-6">
          <SheetTitle className="text-white">Menu</SheetTitle>
          <SheetDescription className="text-zinc-400">Explore Switchboard</SheetDescription>
        </SheetHeader>
        <nav aria-label="Mobile" className="flex flex-col px-3">
          {HEADER_LINKS.map((link) => (
            <SheetClose key={link.to} asChild>
              <Link
                to={link.to}
                className="flex items-center justify-between rounded-lg px-3 py-3 text-base font-medium text-zinc-200 transition outline-none hover:bg-white/5 hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400"
              >
                {link.label}
                <ArrowRightIcon className="size-4 text-zinc-500" aria-hidden="true" />
              </Link>
            </SheetClose>
          ))}
        </nav>
        <div className="mx-6 border-t border-white/10 pt-5">
          <p className="text-xs font-semibold tracking-wide text-zinc-400 uppercase">Explore</p>
          <ul className="mt-3 grid grid-cols-2 gap-x-4 gap-y-3">
            {MORE_LINKS.map((link) => (
              <li key={link.to}>
                <SheetClose asChild>
                  <Link to={link.to} className="rounded-sm text-sm text-zinc-300 transition outline-none hover:text-white focus-visible:ring-2 focus-visible:ring-violet-400">
                    {link.label}
                  </Link>
                </SheetClose>
              </li>
            ))}
          </ul>
        </div>
        <div className="mt-auto grid gap-3 border-t border-white/10 p-6">
          <SheetClose asChild>
            <Link to="/request-a-demo" className={primaryCta}>
              Request a demo
            </Link>
          </SheetClose>
          <div className="grid grid-cols-2 gap-3">
            <SheetClose asChild>
              <Link to="/login" className="inline-flex h-11 items-center justify-center rounded-full bg-white text-sm font-semibold text-zinc-950 transition outline-none hover:bg-zinc-200 focus-visible:ring-2 focus-visible:ring-violet-400">
                Login
              </Link>
            </SheetClose>
            <SheetClose asChild>
              <Link to="/signup" className="inline-flex h-11 items-center justify-center rounded-full border border-white/15 text-sm font-semibold text-white transition outline-none hover:bg-white/10 focus-visible:ring-2 focus-visible:ring-violet-400">
                Sign up
              </Link>
            </SheetClose>
          </div>
        </div>
      </SheetContent>
    </Sheet>
  );
}
