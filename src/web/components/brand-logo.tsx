import { cn } from "@/lib/utils";

/** The product mark: three bars of a level meter — a voice, seen. */
export function BrandLogo({ className, withName = true }: { className?: string; withName?: boolean }) {
  return (
    <span className={cn("inline-flex items-center gap-2 font-semibold tracking-tight", className)}>
      <svg viewBox="0 0 32 32" aria-hidden="true" className="size-7 shrink-0">
        <rect width="32" height="32" rx="8" className="fill-primary" />
        <path d="M9 12h3v8H9zm5.5-4h3v16h-3zM20 10h3v12h-3z" fill="#fff" />
      </svg>
      {withName && <span>Switchboard</span>}
    </span>
  );
}
