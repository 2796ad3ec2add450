import type { ReactNode } from "react";
import { useParams } from "react-router";
import { ContentPage, LinkGrid, PointGrid, type ContentPoint } from "./content-page";

interface Product {
  slug: string;
  name: string;
  title: string;
  lede: string;
  points: ContentPoint[];
}

const PRODUCTS: Product[] = [
  {
    slug: "agent-studio",
    name: "Agent Studio",
    title: "Build voice assistants the way you'd brief an agent",
    lede: "Write instructions and a first message, connect tools, then call the assistant from your browser to hear exactly what your customers will.",
    points: [
      { title: "Instructions in plain language", text: "Describe the role, the tone and the rules. No flow charts to maintain." },
      { title: "Test calls in the browser", text: "Talk to the assistant or type to it, with a live transcript and every tool call shown." },
      { title: "Tools from any API", text: "Point a tool at an HTTP endpoint, describe its parameters and test it before going live." },
    ],
  },
  {
    slug: "technology",
    name: "Technology",
    title: "Real-time speech to speech, built for the phone",
    lede: "Switchboard streams audio both ways with sub-second response times, lets callers interrupt naturally, and runs tools mid-sentence.",
    points: [
      { title: "Natural turn-taking", text: "Voice activity detection tuned for phone lines, with barge-in that stops the assistant instantly." },
      { title: "One engine", text: "Browser test calls and real phone calls run through the same call engine, so tests tell the truth." },
      { title: "Self-hostable", text: "One process, your PostgreSQL, your object storage. Scale out behind a load balancer." },
    ],
  },
  {
    slug: "integrations",
    name: "Integrations",
    title: "Connect the systems that answer your callers' questions",
    lede: "Any HTTP API becomes a tool. The assistant decides when to call it, fills the parameters from the conversation and explains the result.",
    points: [
      { title: "CRMs and order systems", text: "Look up customers, orders and tickets while the caller is speaking." },
      { title: "Schedulers", text: "Check availability and book appointments against your live calendars." },
      { title: "Telephony", text: "Buy numbers, link them to assistants and take real calls in minutes." },
    ],
  },
  {
    slug: "data-insights",
    name: "Data Insights",
    title: "Know why customers call, and what happened on every call",
    lede: "Transcripts, tool calls, durations and costs for every call in one place, for test and real traffic alike.",
    points: [
      { title: "Full transcripts", text: "Caller and assistant turns, system events and tool results, time-stamped." },
      { title: "Cost per call", text: "See what each conversation cost, to the cent." },
      { title: "Recordings", text: "Listen back to any call to coach, audit or improve the assistant." },
    ],
  },
  {
    slug: "security",
    name: "Security",
    title: "Security your risk team will sign off on",
    lede: "Run Switchboard in your own environment. Your calls, transcripts and credentials never leave infrastructure you control.",
    points: [
      { title: "Encrypted secrets", text: "API keys and telephony credentials are encrypted at rest and never shown in full again." },
      { title: "Guarded tools", text: "Tool calls cannot reach private networks unless you explicitly allow them." },
      { title: "Signed media", text: "Recordings and media are served only through short-lived signed addresses." },
    ],
  },
  {
    slug: "languages",
    name: "Languages",
    title: "Answer every caller in their own language",
    lede: "Assistants understand and speak 12 languages, switching when the caller does, so no one waits for the one agent who speaks theirs.",
    points: [
      { title: "12 languages", text: "Including English, Spanish, French, German, Italian, Portuguese, Japanese and Mandarin." },
      { title: "Mid-call switching", text: "The assistant follows the caller's language without a menu or a transfer." },
      { title: "One set of instructions", text: "Write your rules once; they apply in every language." },
    ],
  },
];

/** /product/:slug; an unknown slug renders `notFound` (the router passes the not-found page). */
export function ProductPage({ notFound }: { notFound: ReactNode }) {
  const { slug } = useParams();
  const product = PRODUCTS.find((p) => p.slug === slug);
  if (!product) return notFound;
  return (
    <ContentPage eyebrow={product.name} title={product.title} lede={product.lede}>
      <PointGrid points={product.points} />
      <LinkGrid
        title="More of the platform"
        items={PRODUCTS.filter((p) => p.slug !== slug).map((p) => ({ to: `/product/${p.slug}`, name: p.name, summary: p.title }))}
      />
    </ContentPage>
  );
}
