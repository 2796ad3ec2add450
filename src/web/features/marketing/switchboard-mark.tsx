import { useId } from "react";

/**
 * The product mark and name for dark marketing surfaces: the same level-meter glyph as
 * components/brand-logo, drawn here with plain classes so the landing chunk doesn't pull in `cn`.
 */
export function SwitchboardMark({ className = "" }: { className?: string }) {
  // Header and footer both draw the mark: each needs its own gradient id.
  const gradientId = `switchboard-mark-${useId().replace(/[^a-zA-Z0-9_-]/g, "")}`;
  return (
    <span className={`inline-flex items-center gap-2.5 text-lg font-semibold tracking-tight ${className}`}>
      <svg viewBox="0 0 32 32" aria-hidden="true" className="size-8 shrink-0">
        <defs>
          <linearGradient id={gradientId} x1="0" y1="0" x2="32" y2="32" gradientUnits="userSpaceOnUse">
            <stop stopColor="#7c3aed" />
            <stop offset="1" stopColor="#c026d3" />
          </linearGradient>
        </defs>
        <rect width="32" height="32" rx="8" fill={`url(#${gradientId})`} />
        <path d="M9 12h3v8H9zm5.5-4h3v16h-3zM20 10h3v12h-3z" fill="#fff" />
      </svg>
      <span>Switchboard</span>
    </span>
  );
}
