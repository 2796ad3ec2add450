import { ArrowRightIcon, MailIcon } from "lucide-react";
import { Link } from "react-router";
import { ContentPage, LinkGrid, PointGrid } from "./content-page";
import { textLink } from "./styles";

/**
 * The Resources section (top bar, footer): guides, the blog, how call recordings work, and the
 * press page. Everything here describes what the product really does.
 */

const GUIDES = [
  { title: "Build your first assistant", text: "Name it, write its instructions and first message, pick a voice and model. Create new on the Assistants page opens the form; nothing is live until you link a number." },
  { title: "Turn an API into a tool", text: "On the Tools page, give the endpoint's URL, method and a JSON schema of its parameters. The Test button runs it with your values before any caller does." },
  { title: "Test a call in the browser", text: "Test call on an assistant opens a live voice call from your microphone, with the transcript, tool calls and cost as they happen. Type a message to test without speaking." },
  { title: "Buy and link a phone number", text: "With your Twilio account connected in Settings, buy a number on the Phone Numbers page and link it to one assistant: callers reach it at once." },
  { title: "Review calls", text: "The Calls page lists every call with its duration, cost and status. Open one for the recording, the transcript with each tool's parameters and result, and the raw logs." },
  { title: "Keep credentials safe", text: "Your OpenAI key and Twilio credentials are encrypted on the server and never shown again in full. Remove them in Settings whenever you like." },
];

export function GuidesPage() {
  return (
    <ContentPage eyebrow="Guides" title="Guides for building voice assistants" lede="Short, practical walkthroughs of each step, from the first assistant to a live phone number.">
      <PointGrid points={GUIDES} />
      <LinkGrid
        title="Go deeper"
        items={[
          { to: "/how-it-works", name: "How it works", summary: "The six-week path from first call review to live traffic." },
          { to: "/resources/call-recordings", name: "Call recordings", summary: "What is recorded, where it is kept, and how it is deleted." },
          { to: "/product/integrations", name: "Integrations", summary: "Connect your systems as tools the assistant can call." },
        ]}
      />
    </ContentPage>
  );
}

const POSTS = [
  { title: "Why the call engine runs on our server", text: "Browser test calls and phone calls go through one engine on the server: the provider key never reaches a browser, and cost, transcript and tool results cannot be forged by a client." },
  { title: "Barge-in that respects what the caller heard", text: "When a caller interrupts, we cut the assistant's reply at the moment the caller stopped hearing it, so the model's memory of the conversation matches the caller's." },
  { title: "Tools that cannot reach your private network", text: "Every tool call is checked against private and internal addresses before it leaves, so an assistant's tools cannot be turned against the systems around them." },
  { title: "Self-hosting a contact-centre AI", text: "One process, an embedded PostgreSQL by default and a folder for recordings: how Switchboard runs on a single machine and scales out behind a load balancer." },
];

export function BlogPage() {
  return (
    <ContentPage eyebrow="Blog" title="Notes from building Switchboard" lede="How we build voice assistants that answer real phone calls, and the choices behind them.">
      <ul className="grid gap-6 md:grid-cols-2">
        {POSTS.map((post) => (
          <li key={post.title} className="rounded-2xl border border-zinc-200 p-6">
            <p className="text-sm font-medium text-violet-700">Engineering</p>
            <h2 className="mt-2 text-xl font-semibold text-zinc-950">{post.title}</h2>
            <p className="mt-2 leading-7 text-zinc-600">{post.text}</p>
          </li>
        ))}
      </ul>
    </ContentPage>
  );
}

const RECORDING_FACTS = [
  { title: "Every call, both sides", text: "Each test call and phone call is recorded as one stereo file: the caller on the left channel, the assistant on the right, on one timeline." },
  { title: "Written as the call goes", text: "The recording is stored while the call runs, never held whole in memory, in your own storage: a local folder or an S3-compatible bucket." },
  { title: "Played back beside the transcript", text: "Open a call on the Calls page to play its recording next to the transcript, with every tool call's parameters and result." },
  { title: "Private addresses", text: "Recordings are served only through signed addresses that expire, to the account that owns the call." },
  { title: "Deleted with the account", text: "Deleting your account deletes every recording it made, along with its calls, assistants, tools and numbers." },
  { title: "Tell your callers", text: "Many jurisdictions require callers to know a call is recorded: say so in your assistant's first message." },
];

export function CallRecordingsPage() {
  return (
    <ContentPage eyebrow="Call recordings" title="Hear exactly what your callers heard" lede="How Switchboard records calls, where the recordings live and who can play them.">
      <PointGrid points={RECORDING_FACTS} />
    </ContentPage>
  );
}

export function PressPage() {
  return (
    <ContentPage eyebrow="Press" title="Switchboard in the press" lede="Resources for journalists and analysts writing about voice AI in the contact centre." cta={false}>
      <div className="grid gap-6 md:grid-cols-2">
        <section className="rounded-2xl border border-zinc-200 p-6" aria-labelledby="press-about">
          <h2 id="press-about" className="text-lg font-semibold text-zinc-950">
            About Switchboard
          </h2>
          <p className="mt-2 leading-7 text-zinc-600">
            Switchboard is a self-hostable platform on which contact centres build AI voice assistants that answer their phone calls: instructions, a
            first message and the tools each assistant may call on the centre&apos;s own systems.
          </p>
          <Link to="/company/about" className={`${textLink} mt-4`}>
            More about the company <ArrowRightIcon className="size-4" aria-hidden="true" />
          </Link>
        </section>
        <section className="rounded-2xl border border-zinc-200 p-6" aria-labelledby="press-contact">
          <h2 id="press-contact" className="text-lg font-semibold text-zinc-950">
            Press contact
          </h2>
          <p className="mt-2 leading-7 text-zinc-600">For interviews, product briefings and logos, write to us; we answer within one working day.</p>
          <a href="mailto:press@switchboard.example" className={`${textLink} mt-4`}>
            <MailIcon className="size-4" aria-hidden="true" /> press@switchboard.example
          </a>
        </section>
      </div>
    </ContentPage>
  );
}
