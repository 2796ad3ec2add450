import {
  ArrowRightIcon,
  BlocksIcon,
  Building2Icon,
  ChartNoAxesCombinedIcon,
  PencilRulerIcon,
  PlugZapIcon,
  RefreshCwIcon,
  ScanSearchIcon,
  ShieldCheckIcon,
  WorkflowIcon,
} from "lucide-react";
import { Link } from "react-router";
import { INDUSTRY_LINKS, USE_CASE_LINKS } from "./site-links";
import { eyebrowDark, eyebrowLight, ghostCtaDark, sectionShell, textLink } from "./styles";
import { RequestDemoCta } from "./request-demo-cta";

const STEPS = [
  { icon: PencilRulerIcon, title: "Design", text: "We map your call reasons, write the assistant's instructions and voice with your team, and agree what it may do." },
  { icon: PlugZapIcon, title: "Integrate", text: "The assistant connects to your CRM, booking and billing systems as tools, and to your phone numbers." },
  { icon: ScanSearchIcon, title: "Analyze", text: "Every call is transcribed and scored, so you see what callers ask for and where the assistant hands off." },
  { icon: RefreshCwIcon, title: "Improve", text: "Instructions and tools are tuned week by week from real calls, and resolution keeps climbing." },
];

/** Section 5: how a customised assistant is designed, integrated and deployed in six weeks or less. */
export function LandingHowItWorks() {
  return (
    <section aria-labelledby="how-title" className="bg-white py-24 sm:py-32">
      <div className={sectionShell}>
        <div className="flex flex-col gap-6 lg:flex-row lg:items-end lg:justify-between">
          <div className="max-w-2xl">
            <p className={eyebrowLight}>How it works</p>
            <h2 id="how-title" className="mt-3 text-3xl font-semibold tracking-tight text-balance text-zinc-950 sm:text-5xl">
              Designed, integrated and deployed in six weeks or less
            </h2>
          </div>
          <Link to="/how-it-works" className={textLink}>
            Learn more
            <ArrowRightIcon className="size-4" aria-hidden="true" />
          </Link>
        </div>
        <ol className="mt-16 grid gap-6 md:grid-cols-2 lg:grid-cols-4">
          {STEPS.map(({ icon: Icon, title, text }, i) => (
            <li key={title} className="relative rounded-2xl border border-zinc-200 p-6">
              <div className="flex items-center justify-between">
                <span className="flex size-11 items-center justify-center rounded-xl bg-zinc-950 text-white">
                  <Icon className="size-5" aria-hidden="true" />
                </span>
                <span className="font-mono text-sm text-zinc-500">Step {i + 1}</span>
              </div>
              <h3 className="mt-6 text-xl font-semibold text-zinc-950">{title}</h3>
              <p className="mt-2 text-sm leading-6 text-zinc-600">{text}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

const ENTERPRISE = [
  {
    icon: ShieldCheckIcon,
    title: "Security",
    text: "Self-hosted on your infrastructure. Credentials are encrypted at rest, calls stay in your database, and every tool call is logged.",
  },
  {
    icon: BlocksIcon,
    title: "Integrations",
    text: "Any HTTP API becomes a tool the assistant can call mid-conversation: CRMs, order systems, schedulers and your own services.",
  },
  {
    icon: ChartNoAxesCombinedIcon,
    title: "Analytics",
    text: "Transcripts, tool results, durations and costs for every call, test or real, to see exactly what happened and why.",
  },
];

/** Section 6: the enterprise pillars. */
export function LandingEnterprise() {
  return (
    <section aria-labelledby="enterprise-title" className="relative isolate overflow-hidden bg-zinc-950 py-24 text-white sm:py-32">
      <div aria-hidden="true" className="absolute top-0 left-1/2 -z-10 h-96 w-[56rem] -translate-x-1/2 rounded-full bg-[radial-gradient(closest-side,rgba(124,58,237,0.25),transparent)]" />
      <div className={sectionShell}>
        <div className="mx-auto max-w-3xl text-center">
          <p className={eyebrowDark}>Enterprise ready</p>
          <h2 id="enterprise-title" className="mt-3 text-3xl font-semibold tracking-tight text-balance sm:text-5xl">
            Built for the contact centers with the strictest requirements
          </h2>
        </div>
        <div className="mt-16 grid gap-6 lg:grid-cols-3">
          {ENTERPRISE.map(({ icon: Icon, title, text }) => (
            <div key={title} className="rounded-3xl border border-white/10 bg-white/[0.03] p-8">
              <span className="flex size-12 items-center justify-center rounded-2xl bg-linear-to-br from-violet-600 to-fuchsia-600 text-white">
                <Icon className="size-6" aria-hidden="true" />
              </span>
              <h3 className="mt-6 text-xl font-semibold">{title}</h3>
              <p className="mt-3 leading-7 text-zinc-400">{text}</p>
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}

/** Section 7: the Industries and Use Cases cards. */
export function LandingSolutions() {
  return (
    <section aria-labelledby="solutions-title" className="bg-zinc-50 py-24 sm:py-32">
      <div className={sectionShell}>
        <div className="max-w-2xl">
          <p className={eyebrowLight}>Solutions</p>
          <h2 id="solutions-title" className="mt-3 text-3xl font-semibold tracking-tight text-balance text-zinc-950 sm:text-4xl">
            One platform for every line you answer
          </h2>
        </div>
        <div className="mt-12 grid gap-6 lg:grid-cols-2">
          <SolutionCard
            to="/industries"
            icon={Building2Icon}
            title="Industries"
            text="From banks and insurers to hotels, restaurants and utilities: assistants that know your sector's calls."
            chips={INDUSTRY_LINKS.slice(0, 6).map((l) => l.label)}
          />
          <SolutionCard
            to="/use-cases"
            icon={WorkflowIcon}
            title="Use Cases"
            text="Authentication, billing, bookings, order status and troubleshooting, handled end to end on the phone."
            chips={USE_CASE_LINKS.slice(0, 6).map((l) => l.label)}
          />
        </div>
      </div>
    </section>
  );
}

function SolutionCard({ to, icon: Icon, title, text, chips }: { to: string; icon: typeof WorkflowIcon; title: string; text: string; chips: string[] }) {
  return (
    <Link
      to={to}
      className="group flex flex-col rounded-3xl border border-zinc-200 bg-white p-8 shadow-sm transition outline-none hover:-translate-y-0.5 hover:shadow-lg focus-visible:ring-2 focus-visible:ring-violet-500"
    >
      <div className="flex items-center justify-between">
        <span className="flex size-12 items-center justify-center rounded-2xl bg-violet-100 text-violet-700">
          <Icon className="size-6" aria-hidden="true" />
        </span>
        <ArrowRightIcon className="size-5 text-zinc-400 transition group-hover:translate-x-1 group-hover:text-violet-700" aria-hidden="true" />
      </div>
      <h3 className="mt-6 text-2xl font-semibold text-zinc-950">{title}</h3>
      <p className="mt-3 leading-7 text-zinc-600">{text}</p>
      <ul className="mt-6 flex flex-wrap gap-2" aria-label={`${title} examples`}>
        {chips.map((chip) => (
          <li key={chip} className="rounded-full bg-zinc-100 px-3 py-1 text-xs font-medium text-zinc-700">
            {chip}
          </li>
        ))}
      </ul>
    </Link>
  );
}

/** Section 8: the closing call to action. */
export function ClosingCta() {
  return (
    <section aria-labelledby="cta-title" className="bg-white py-24 sm:py-32">
      <div className={sectionShell}>
        <div className="relative isolate overflow-hidden rounded-[2rem] bg-zinc-950 px-6 py-16 text-center text-white sm:px-16 sm:py-20">
          <div aria-hidden="true" className="absolute inset-0 -z-10 bg-[radial-gradient(ellipse_at_top,rgba(124,58,237,0.55),transparent_60%),radial-gradient(ellipse_at_bottom_right,rgba(192,38,211,0.35),transparent_55%)]" />
          <h2 id="cta-title" className="mx-auto max-w-2xl text-3xl font-semibold tracking-tight text-balance sm:text-5xl">
            Hear an assistant answer your calls
          </h2>
          <p className="mx-auto mt-5 max-w-xl text-lg text-zinc-300">
            Book a 30-minute demo. We&apos;ll call through a live assistant built around one of your real call reasons.
          </p>
          <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
            <RequestDemoCta />
            <Link to="/how-it-works" className={ghostCtaDark}>
              See how it works
            </Link>
          </div>
        </div>
      </div>
    </section>
  );
}
