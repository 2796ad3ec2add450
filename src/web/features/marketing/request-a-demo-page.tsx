import { CheckIcon, QuoteIcon } from "lucide-react";
import { lazy, Suspense, useEffect, useState } from "react";
import { MarketingLayout } from "./marketing-layout";
import { sectionShell } from "./styles";

// The form's validation stack (react-hook-form, zod) follows the page's text, which paints first.
const DemoForm = lazy(async () => ({ default: (await import("./demo-form")).DemoForm }));

const BULLETS = [
  "See and hear the technology in action",
  "Discuss security, support and customization",
  "Compare with other voice platforms",
  "Talk pricing and timeline",
];

/** Request a demo (/request-a-demo): headline, bullets, form, privacy link and a testimonial (spec §2). */
export function RequestADemoPage() {
  // Start fetching the form's code once the text has painted, so the two don't compete for the first paint.
  const [showForm, setShowForm] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShowForm(true), 0);
    return () => clearTimeout(timer);
  }, []);

  return (
    <MarketingLayout title="Request a demo">
      <section className="relative isolate overflow-hidden bg-zinc-950 pt-28 pb-20 text-white sm:pt-36 sm:pb-28">
        <div aria-hidden="true" className="absolute -top-40 left-1/4 -z-10 h-[36rem] w-[48rem] rounded-full bg-[radial-gradient(closest-side,rgba(124,58,237,0.35),transparent)]" />
        <div aria-hidden="true" className="absolute right-0 bottom-0 -z-10 h-[28rem] w-[28rem] rounded-full bg-[radial-gradient(closest-side,rgba(192,38,211,0.2),transparent)]" />
        <div className={`${sectionShell} grid gap-12 lg:grid-cols-[minmax(0,0.9fr)_minmax(0,1.1fr)] lg:grid-rows-[auto_1fr] lg:gap-x-16`}>
          <div className="lg:col-start-1 lg:row-start-1 lg:pt-6">
            <p className="text-sm font-semibold tracking-wide text-violet-300 uppercase">Request a demo</p>
            <h1 className="mt-3 text-4xl font-semibold tracking-tight text-balance sm:text-5xl">Request a demo with our team</h1>
            <p className="mt-5 max-w-lg text-lg leading-8 text-zinc-300">
              Thirty minutes with a voice-AI specialist and a live assistant built around one of your call reasons. In the call, you&apos;ll:
            </p>
            <ul className="mt-8 grid gap-4">
              {BULLETS.map((bullet) => (
                <li key={bullet} className="flex items-start gap-3 text-zinc-100">
                  <span className="mt-0.5 flex size-6 shrink-0 items-center justify-center rounded-full bg-violet-500/20 text-violet-300">
                    <CheckIcon className="size-4" aria-hidden="true" />
                  </span>
                  {bullet}
                </li>
              ))}
            </ul>
          </div>

          <div className="rounded-3xl bg-white p-6 text-zinc-900 shadow-2xl shadow-black/40 sm:p-10 lg:col-start-2 lg:row-span-2 lg:row-start-1 lg:self-start">
            <h2 className="text-xl font-semibold text-zinc-950">Tell us about your contact center</h2>
            <p className="mt-1 mb-8 text-sm text-zinc-600">We reply within one business day.</p>
            {showForm ? (
              <Suspense fallback={<FormPlaceholder />}>
                <DemoForm />
              </Suspense>
            ) : (
              <FormPlaceholder />
            )}
          </div>

          <Testimonial className="lg:col-start-1 lg:row-start-2 lg:self-start" />
        </div>
      </section>
    </MarketingLayout>
  );
}

function Testimonial({ className = "" }: { className?: string }) {
  return (
    <figure className={`rounded-3xl border border-white/10 bg-white/[0.04] p-8 ${className}`}>
      <QuoteIcon className="size-8 text-fuchsia-300" aria-hidden="true" />
      <blockquote className="mt-4 text-lg leading-8 text-zinc-100">
        &ldquo;At renewal season our average hold was nine minutes. Now every call is answered on the first ring, and my agents spend their
        day on the conversations that actually need a person.&rdquo;
      </blockquote>
      <figcaption className="mt-6 flex items-center gap-4">
        <span aria-hidden="true" className="flex size-12 items-center justify-center rounded-full bg-linear-to-br from-violet-500 to-fuchsia-500 font-semibold text-white">
          MO
        </span>
        <span>
          <span className="block font-semibold text-white">Maya Okafor</span>
          <span className="block text-sm text-zinc-400">Director of Contact Center Operations, Harbourline Insurance</span>
        </span>
      </figcaption>
    </figure>
  );
}

/** Holds the form's place (same height) while its code loads, so nothing below jumps. */
function FormPlaceholder() {
  return (
    <div aria-hidden="true" className="grid gap-5">
      {[0, 1, 2, 3].map((row) => (
        <div key={row} className="grid gap-5 sm:grid-cols-2">
          {[0, 1].map((col) => (
            <div key={col} className="grid gap-2">
              <div className="h-4 w-24 rounded bg-zinc-100" />
              <div className="h-10 rounded-md bg-zinc-100" />
            </div>
          ))}
        </div>
      ))}
      <div className="grid gap-2">
        <div className="h-4 w-32 rounded bg-zinc-100" />
        <div className="h-24 rounded-md bg-zinc-100" />
      </div>
      <div className="h-11 rounded-full bg-zinc-100" />
      <div className="h-10" />
    </div>
  );
}
