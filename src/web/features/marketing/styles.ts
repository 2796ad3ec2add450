// Plain class strings rather than the `cn`/Button helpers: the landing chunk stays free of
// tailwind-merge and variant machinery, which keeps a visitor's first download small.

const focusRing = "outline-none focus-visible:ring-2 focus-visible:ring-violet-400 focus-visible:ring-offset-2";

/** The gradient call to action (Request a demo). */
export const primaryCta = `inline-flex h-11 items-center justify-center gap-2 rounded-full bg-linear-to-r from-violet-600 to-fuchsia-600 px-6 text-sm font-semibold text-white shadow-lg shadow-violet-600/25 transition hover:from-violet-500 hover:to-fuchsia-500 ${focusRing} focus-visible:ring-offset-zinc-950`;

/** A quiet outlined action on dark backgrounds. */
export const ghostCtaDark = `inline-flex h-11 items-center justify-center gap-2 rounded-full border border-white/15 bg-white/5 px-6 text-sm font-semibold text-white transition hover:bg-white/10 ${focusRing} focus-visible:ring-offset-zinc-950`;

/** A quiet outlined action on light backgrounds. */
export const ghostCtaLight = `inline-flex h-11 items-center justify-center gap-2 rounded-full border border-zinc-300 bg-white px-6 text-sm font-semibold text-zinc-900 transition hover:bg-zinc-50 ${focusRing}`;

/** Text links inside light sections. */
export const textLink = `inline-flex items-center gap-1.5 rounded-sm font-semibold text-violet-700 transition hover:text-violet-900 ${focusRing}`;

export const sectionShell = "mx-auto w-full max-w-7xl px-5 sm:px-8";

export const eyebrowLight = "text-sm font-semibold tracking-wide text-violet-700 uppercase";
export const eyebrowDark = "text-sm font-semibold tracking-wide text-violet-300 uppercase";
