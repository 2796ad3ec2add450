import { CheckCircle2Icon } from "lucide-react";
import type { ReactNode } from "react";
import { useParams } from "react-router";
import { ContentPage, LinkGrid, PointGrid } from "./content-page";
import { INDUSTRIES, USE_CASES, type Solution } from "./solutions-data";

const toLinks = (base: string, items: Solution[]) => items.map((s) => ({ to: `${base}/${s.slug}`, name: s.name, summary: s.summary }));

export function IndustriesPage() {
  return (
    <ContentPage
      eyebrow="Industries"
      title="Voice assistants that know your industry"
      lede="Every sector has its own calls, rules and peaks. Switchboard assistants are designed around yours, and connected to the systems that answer them."
    >
      <LinkGrid title="Choose your industry" items={toLinks("/industries", INDUSTRIES)} />
    </ContentPage>
  );
}

export function UseCasesPage() {
  return (
    <ContentPage
      eyebrow="Use Cases"
      title="The calls an assistant can take end to end"
      lede="Start with the call reasons that fill your queue today. Each one becomes a conversation the assistant resolves with your own tools."
    >
      <LinkGrid title="Explore use cases" items={toLinks("/use-cases", USE_CASES)} />
    </ContentPage>
  );
}

function SolutionDetail({ kind, base, items, notFound }: { kind: string; base: string; items: Solution[]; notFound: ReactNode }) {
  const { slug } = useParams();
  const solution = items.find((s) => s.slug === slug);
  if (!solution) return notFound;
  return (
    <ContentPage eyebrow={kind} title={solution.name} lede={solution.summary}>
      <PointGrid points={solution.points} />
      <ul className="mt-12 grid gap-3 rounded-2xl bg-zinc-50 p-6 sm:grid-cols-3">
        {["Answered on the first ring", "Available in 12 languages", "Live in six weeks or less"].map((item) => (
          <li key={item} className="flex items-center gap-2 text-sm font-medium text-zinc-800">
            <CheckCircle2Icon className="size-5 text-violet-700" aria-hidden="true" />
            {item}
          </li>
        ))}
      </ul>
      <LinkGrid title={`More ${kind.toLowerCase()}`} items={toLinks(base, items.filter((s) => s.slug !== slug)).slice(0, 6)} />
    </ContentPage>
  );
}

/** /industries/:slug; an unknown slug renders `notFound` (the router passes the not-found page). */
export function IndustryPage({ notFound }: { notFound: ReactNode }) {
  return <SolutionDetail kind="Industries" base="/industries" items={INDUSTRIES} notFound={notFound} />;
}

/** /use-cases/:slug; an unknown slug renders `notFound`. */
export function UseCasePage({ notFound }: { notFound: ReactNode }) {
  return <SolutionDetail kind="Use Cases" base="/use-cases" items={USE_CASES} notFound={notFound} />;
}
