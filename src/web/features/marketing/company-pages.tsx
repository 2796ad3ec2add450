import { ArrowRightIcon, CalendarCheckIcon, MailIcon, MapPinIcon } from "lucide-react";
import { Link } from "react-router";
import { ContentPage, PointGrid } from "./content-page";
import { RequestDemoCta } from "./request-demo-cta";
import { textLink } from "./styles";

const STEPS = [
  { week: "Weeks 1–2", title: "Design", text: "We review recordings and call reasons with your team, choose the first use cases, and write the assistant's instructions, first message and escalation rules." },
  { week: "Weeks 2–4", title: "Integrate", text: "Your systems become tools the assistant can call: account lookups, bookings, payments. Numbers are linked and test calls start on day one." },
  { week: "Weeks 4–5", title: "Analyze", text: "A pilot on a share of real traffic. Every transcript, tool call and handoff is reviewed against your quality bar." },
  { week: "Week 6 onward", title: "Improve", text: "Full rollout, then a weekly loop: the calls the assistant could not finish become the next instructions and tools." },
];

export function HowItWorksPage() {
  return (
    <ContentPage
      eyebrow="How it works"
      title="From first call review to live traffic in six weeks or less"
      lede="A customised assistant is designed, integrated and deployed in four steps, with your team involved at each one."
    >
      <ol className="grid gap-6 lg:grid-cols-2">
        {STEPS.map((step, i) => (
          <li key={step.title} className="flex gap-5 rounded-2xl border border-zinc-200 p-6">
            <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-zinc-950 font-semibold text-white">{i + 1}</span>
            <div>
              <p className="text-sm font-medium text-violet-700">{step.week}</p>
              <h2 className="mt-1 text-xl font-semibold text-zinc-950">{step.title}</h2>
              <p className="mt-2 leading-7 text-zinc-600">{step.text}</p>
            </div>
          </li>
        ))}
      </ol>
    </ContentPage>
  );
}

export function PricingPage() {
  return (
    <ContentPage
      eyebrow="Pricing"
      title="Priced on the calls you resolve"
      lede="Every contact center is different, so we quote on your call volume, languages and integrations. Tell us about yours and we'll come back with a plan."
    >
      <PointGrid
        points={[
          { title: "Usage based", text: "Pay for the minutes your assistants spend on calls, with volume tiers from 1,000 to 500,000+ calls a year." },
          { title: "Implementation included", text: "Design, integration and the six-week rollout are part of every plan." },
          { title: "No per-seat fees", text: "Your whole team can build, test and review calls without extra licences." },
        ]}
      />
      <div className="mt-12">
        <RequestDemoCta>Talk pricing with our team</RequestDemoCta>
      </div>
    </ContentPage>
  );
}

export function AboutPage() {
  return (
    <ContentPage
      eyebrow="Company"
      title="We build the voice of the contact center"
      lede="Switchboard started with a simple observation: most calls to a contact center are questions a system already knows the answer to. Callers shouldn't wait on hold for them."
    >
      <PointGrid
        points={[
          { title: "Callers first", text: "An assistant is only good if callers leave happier than they would have after a queue." },
          { title: "Agents second to none", text: "We take routine calls off agents' plates so they can do their best work on the rest." },
          { title: "Yours to run", text: "Switchboard is self-hostable, so your data stays where your policies say it must." },
        ]}
      />
    </ContentPage>
  );
}

export function ContactPage() {
  return (
    <ContentPage eyebrow="Contact" title="Talk to Switchboard" lede="Questions about the product, a partnership or the press? Here is how to reach us." cta={false}>
      <ul className="grid gap-6 md:grid-cols-3">
        <li className="rounded-2xl border border-zinc-200 p-6">
          <CalendarCheckIcon className="size-6 text-violet-700" aria-hidden="true" />
          <h2 className="mt-4 text-lg font-semibold text-zinc-950">Sales</h2>
          <p className="mt-2 text-zinc-600">See an assistant on your own calls.</p>
          <Link to="/request-a-demo" className={`${textLink} mt-4`}>
            Request a demo <ArrowRightIcon className="size-4" aria-hidden="true" />
          </Link>
        </li>
        <li className="rounded-2xl border border-zinc-200 p-6">
          <MailIcon className="size-6 text-violet-700" aria-hidden="true" />
          <h2 className="mt-4 text-lg font-semibold text-zinc-950">Email</h2>
          <p className="mt-2 text-zinc-600">Support, partnerships and press.</p>
          <a href="mailto:hello@switchboard.example" className={`${textLink} mt-4`}>
            hello@switchboard.example
          </a>
        </li>
        <li className="rounded-2xl border border-zinc-200 p-6">
          <MapPinIcon className="size-6 text-violet-700" aria-hidden="true" />
          <h2 className="mt-4 text-lg font-semibold text-zinc-950">Office</h2>
          <p className="mt-2 text-zinc-600">
            548 Market Street, Suite 300
            <br />
            San Francisco, CA 94104
          </p>
        </li>
      </ul>
    </ContentPage>
  );
}
