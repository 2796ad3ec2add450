import { CheckIcon, PhoneIncomingIcon, PlayIcon, WrenchIcon } from "lucide-react";
import { ghostCtaDark, sectionShell } from "./styles";
import { RequestDemoCta } from "./request-demo-cta";

/** Section 1: the headline idea of spec §1 and the Request a demo button. */
export function LandingHero() {
  return (
    <section aria-labelledby="hero-title" className="relative isolate overflow-hidden bg-zinc-950 pt-32 pb-20 text-white sm:pt-40 sm:pb-28">
      <HeroGlow />
      <div className={`${sectionShell} grid items-center gap-14 lg:grid-cols-[minmax(0,1.1fr)_minmax(0,0.9fr)]`}>
        <div>
          <p className="inline-flex items-center gap-2 rounded-full border border-white/10 bg-white/5 px-3 py-1 text-xs font-medium text-zinc-300">
            <span className="size-1.5 rounded-full bg-emerald-400" aria-hidden="true" />
            Live in six weeks or less
          </p>
          <h1 id="hero-title" className="mt-6 text-4xl leading-[1.05] font-semibold tracking-tight text-balance sm:text-6xl">
            Turn your contact center into a{" "}
            <span className="bg-linear-to-r from-violet-300 via-fuchsia-300 to-sky-300 bg-clip-text text-transparent">command center</span>
          </h1>
          <p className="mt-6 max-w-xl text-lg leading-8 text-zinc-300">
            Switchboard voice assistants answer every call on the first ring, resolve routine requests end to end in 12 languages,
            and hand the rest to your agents with the whole conversation in view.
          </p>
          <div className="mt-10 flex flex-col gap-3 sm:flex-row">
            <RequestDemoCta />
            <a href="#customer-stories" className={ghostCtaDark}>
              <PlayIcon className="size-4" aria-hidden="true" />
              Hear customer stories
            </a>
          </div>
          <dl className="mt-12 grid max-w-lg grid-cols-3 gap-6 border-t border-white/10 pt-8">
            <HeroFact value="75%" label="of calls handled" />
            <HeroFact value="12" label="languages" />
            <HeroFact value="6 wks" label="to go live" />
          </dl>
        </div>
        <LiveCallPreview />
      </div>
    </section>
  );
}

function HeroFact({ value, label }: { value: string; label: string }) {
  return (
    <div className="flex flex-col-reverse justify-end">
      <dt className="mt-1 text-sm text-zinc-400">{label}</dt>
      <dd className="text-2xl font-semibold tracking-tight text-white sm:text-3xl">{value}</dd>
    </div>
  );
}

function HeroGlow() {
  return (
    <div aria-hidden="true" className="pointer-events-none absolute inset-0 -z-10">
      <div className="absolute -top-40 left-1/2 h-[36rem] w-[60rem] -translate-x-1/2 rounded-full bg-[radial-gradient(closest-side,rgba(124,58,237,0.35),transparent)]" />
      <div className="absolute top-40 -right-40 h-[28rem] w-[28rem] rounded-full bg-[radial-gradient(closest-side,rgba(192,38,211,0.22),transparent)]" />
      <div className="absolute bottom-0 -left-32 h-[24rem] w-[24rem] rounded-full bg-[radial-gradient(closest-side,rgba(14,165,233,0.16),transparent)]" />
      <div className="absolute inset-0 bg-[linear-gradient(to_right,rgba(255,255,255,0.04)_1px,transparent_1px),linear-gradient(to_bottom,rgba(255,255,255,0.04)_1px,transparent_1px)] bg-[size:56px_56px] [mask-image:radial-gradient(ellipse_at_top,black_30%,transparent_75%)]" />
    </div>
  );
}

const BARS = [35, 60, 80, 45, 90, 70, 30, 55, 85, 65, 40, 75, 95, 50, 35, 70, 60, 85, 45, 30, 65, 80, 50, 40];

/** An illustration of one call the assistant resolves on its own, drawn in markup so it costs no image download. */
function LiveCallPreview() {
  return (
    <figure className="relative mx-auto w-full max-w-md lg:max-w-none">
      <div aria-hidden="true" className="absolute -inset-4 -z-10 rounded-[2rem] bg-linear-to-br from-violet-600/30 via-fuchsia-600/10 to-transparent blur-2xl" />
      <div className="rounded-3xl border border-white/10 bg-zinc-900/80 p-5 shadow-2xl shadow-black/50 backdrop-blur sm:p-6">
        <div className="flex items-center justify-between gap-4">
          <div className="flex items-center gap-3">
            <span className="flex size-10 items-center justify-center rounded-full bg-violet-500/15 text-violet-300">
              <PhoneIncomingIcon className="size-5" aria-hidden="true" />
            </span>
            <div>
              <p className="text-sm font-semibold text-white">Card services line</p>
              <p className="text-xs text-zinc-400">Answered in 0.4 s · English</p>
            </div>
          </div>
          <span className="inline-flex shrink-0 items-center gap-1.5 rounded-full bg-emerald-400/10 px-2.5 py-1 text-xs font-medium whitespace-nowrap text-emerald-300">
            <span className="size-1.5 rounded-full bg-emerald-400" aria-hidden="true" />
            Live 01:42
          </span>
        </div>

        <ol className="mt-6 grid gap-3 text-sm">
          <li className="max-w-[85%] rounded-2xl rounded-tl-sm bg-white/5 px-4 py-3 text-zinc-200">
            Hi, I think my card was charged twice for the same order.
          </li>
          <li className="ml-auto max-w-[85%] rounded-2xl rounded-tr-sm bg-violet-600 px-4 py-3 text-white">
            I can help with that. Let me check your recent transactions.
          </li>
          <li className="flex items-center gap-2 text-xs text-zinc-400">
            <WrenchIcon className="size-3.5 text-fuchsia-300" aria-hidden="true" />
            <span className="font-mono">lookup_transactions</span>
            <span className="inline-flex items-center gap-1 text-emerald-300">
              <CheckIcon className="size-3.5" aria-hidden="true" /> 212 ms
            </span>
          </li>
          <li className="ml-auto max-w-[85%] rounded-2xl rounded-tr-sm bg-violet-600 px-4 py-3 text-white">
            One of the two charges is a pending hold. It drops off within 24 hours, so you were only billed once.
          </li>
        </ol>

        <div className="mt-6 flex h-10 items-center gap-1" aria-hidden="true">
          {BARS.map((h, i) => (
            <span key={i} className="w-full rounded-full bg-linear-to-t from-violet-500 to-fuchsia-400 opacity-80" style={{ height: `${h}%` }} />
          ))}
        </div>
      </div>
      <figcaption className="sr-only">An example call: the assistant checks a customer&apos;s transactions and resolves a double charge.</figcaption>
    </figure>
  );
}
