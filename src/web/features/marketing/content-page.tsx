import { ArrowRightIcon } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";
import { MarketingLayout } from "./marketing-layout";
import { eyebrowDark, ghostCtaDark, sectionShell } from "./styles";
import { RequestDemoCta } from "./request-demo-cta";

export interface ContentPoint {
  title: string;
  text: string;
}

/** The frame of the secondary marketing pages: a dark header band, the page's body and a demo call to action. */
export function ContentPage({
  eyebrow,
  title,
  lede,
  children,
  cta = true,
}: {
  eyebrow: string;
  title: string;
  lede: string;
  children: ReactNode;
  cta?: boolean;
}) {
  return (
    <MarketingLayout title={title}>
      <section className="relative isolate overflow-hidden bg-zinc-950 pt-32 pb-16 text-white sm:pt-40 sm:pb-24">
        <div aria-hidden="true" className="absolute -top-48 left-1/2 -z-10 h-[32rem] w-[56rem] -translate-x-1/2 rounded-full bg-[radial-gradient(closest-side,rgba(124,58,237,0.3),transparent)]" />
        <div className={sectionShell}>
          <p className={eyebrowDark}>{eyebrow}</p>
          <h1 className="mt-3 max-w-3xl text-4xl font-semibold tracking-tight text-balance sm:text-6xl">{title}</h1>
          <p className="mt-6 max-w-2xl text-lg leading-8 text-zinc-300">{lede}</p>
        </div>
      </section>
      <div className="bg-white py-16 sm:py-24">
        <div className={sectionShell}>{children}</div>
      </div>
      {cta && <DemoBand />}
    </MarketingLayout>
  );
}

/** Cards of short points, used by most content pages. */
export function PointGrid({ points, columns = 3 }: { points: ContentPoint[]; columns?: 2 | 3 }) {
  return (
    <ul className={`grid gap-6 sm:grid-cols-2 ${columns === 3 ? "lg:grid-cols-3" : ""}`}>
      {points.map((point) => (
        <li key={point.title} className="rounded-2xl border border-zinc-200 p-6">
          <h2 className="text-lg font-semibold text-zinc-950">{point.title}</h2>
          <p className="mt-2 leading-7 text-zinc-600">{point.text}</p>
        </li>
      ))}
    </ul>
  );
}

/** A grid of links to sibling pages (industries, use cases, products). */
export function LinkGrid({ title, items }: { title: string; items: { to: string; name: string; summary: string }[] }) {
  return (
    <section aria-label={title} className="mt-16">
      <h2 className="text-2xl font-semibold tracking-tight text-zinc-950">{title}</h2>
      <ul className="mt-8 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {items.map((item) => (
          <li key={item.to}>
            <Link
              to={item.to}
              className="group flex h-full flex-col rounded-2xl border border-zinc-200 p-6 transition outline-none hover:border-violet-300 hover:shadow-md focus-visible:ring-2 focus-visible:ring-violet-500"
            >
              <span className="flex items-center justify-between font-semibold text-zinc-950">
                {item.name}
                <ArrowRightIcon className="size-4 text-zinc-400 transition group-hover:translate-x-0.5 group-hover:text-violet-700" aria-hidden="true" />
              </span>
              <span className="mt-2 text-sm leading-6 text-zinc-600">{item.summary}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

function DemoBand() {
  return (
    <section aria-label="Request a demo" className="bg-zinc-950 py-20 text-white">
      <div className={`${sectionShell} flex flex-col items-start justify-between gap-8 lg:flex-row lg:items-center`}>
        <div>
          <h2 className="text-3xl font-semibold tracking-tight">Hear it on your own calls</h2>
          <p className="mt-3 max-w-xl text-zinc-300">A 30-minute demo with a live assistant built around one of your call reasons.</p>
        </div>
        <div className="flex flex-col gap-3 sm:flex-row">
          <RequestDemoCta />
          <Link to="/contact" className={ghostCtaDark}>
            Contact us
          </Link>
        </div>
      </div>
    </section>
  );
}
