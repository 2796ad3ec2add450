import { AlertCircleIcon, PlayIcon, RotateCwIcon } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import type { CustomerCard } from "@shared/marketing";
import { eyebrowDark, sectionShell } from "./styles";
import { useCustomerCards } from "./use-customer-cards";

// The player (a Radix dialog) is fetched when a visitor first chooses a story, not with the page.
const loadVideoModal = () => import("./video-modal");
const VideoModal = lazy(loadVideoModal);

/** Section 2: three customer video cards; choosing one opens the modal player. */
export function CustomerStories() {
  const { data: cards, isPending, isError, refetch, isRefetching } = useCustomerCards();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  // Looked up by id so a refetch (fresh signed addresses) reaches an open player too.
  const selected = cards?.find((c) => c.id === selectedId) ?? null;

  return (
    <section id="customer-stories" aria-labelledby="stories-title" className="scroll-mt-16 bg-zinc-950 pb-24 text-white">
      <div className={sectionShell}>
        <div className="flex flex-col gap-4 border-t border-white/10 pt-16 sm:flex-row sm:items-end sm:justify-between">
          <div className="max-w-2xl">
            <p className={eyebrowDark}>Customer stories</p>
            <h2 id="stories-title" className="mt-3 text-3xl font-semibold tracking-tight text-balance sm:text-4xl">
              Hear the contact centers already running on Switchboard
            </h2>
          </div>
          <p className="max-w-sm text-zinc-400">Short clips from a bank, an airline and a healthcare network, in their own words.</p>
        </div>

        <div className="mt-12 grid gap-6 md:grid-cols-3">
          {isPending && [0, 1, 2].map((i) => <div key={i} aria-hidden="true" className="aspect-video animate-pulse rounded-2xl bg-white/5" />)}
          {isError && (
            <div role="alert" className="flex flex-col items-start gap-4 rounded-2xl border border-white/10 bg-white/5 p-6 md:col-span-3 sm:flex-row sm:items-center sm:justify-between">
              <p className="flex items-center gap-3 text-zinc-300">
                <AlertCircleIcon className="size-5 shrink-0 text-fuchsia-300" aria-hidden="true" />
                Customer stories could not be loaded right now.
              </p>
              <button
                type="button"
                onClick={() => void refetch()}
                disabled={isRefetching}
                className="inline-flex h-9 items-center gap-2 rounded-full border border-white/15 px-4 text-sm font-semibold text-white transition outline-none hover:bg-white/10 focus-visible:ring-2 focus-visible:ring-violet-400 disabled:opacity-60"
              >
                <RotateCwIcon className={`size-4 ${isRefetching ? "animate-spin" : ""}`} aria-hidden="true" />
                Try again
              </button>
            </div>
          )}
          {cards?.length === 0 && <p className="text-zinc-400 md:col-span-3">New customer stories are on their way.</p>}
          {cards?.map((card) => (
            <StoryCard
              key={card.id}
              card={card}
              onPrefetch={() => void loadVideoModal()}
              onChoose={() => {
                setSelectedId(card.id);
                setOpen(true);
              }}
            />
          ))}
        </div>
      </div>
      {selected && (
        <Suspense fallback={null}>
          <VideoModal card={selected} open={open} onOpenChange={setOpen} onExpired={() => void refetch()} />
        </Suspense>
      )}
    </section>
  );
}

function StoryCard({ card, onChoose, onPrefetch }: { card: CustomerCard; onChoose: () => void; onPrefetch: () => void }) {
  return (
    <button
      type="button"
      data-testid="customer-story"
      onClick={onChoose}
      onPointerEnter={onPrefetch}
      onFocus={onPrefetch}
      className="group relative isolate block aspect-video w-full overflow-hidden rounded-2xl border border-white/10 bg-zinc-900 text-left shadow-xl shadow-black/40 transition outline-none hover:border-white/25 focus-visible:ring-2 focus-visible:ring-violet-400 focus-visible:ring-offset-2 focus-visible:ring-offset-zinc-950"
    >
      <img
        src={card.backgroundImage}
        alt=""
        width={640}
        height={360}
        loading="lazy"
        decoding="async"
        className="absolute inset-0 -z-10 size-full object-cover transition duration-500 group-hover:scale-105"
      />
      <span aria-hidden="true" className="absolute inset-0 -z-10 bg-linear-to-t from-black/80 via-black/20 to-transparent" />
      <span className="absolute top-4 left-4">
        <img src={card.logoImage} alt="" height={32} className="h-8 w-auto" loading="lazy" decoding="async" />
      </span>
      <span className="absolute inset-x-4 bottom-4 flex items-end justify-between gap-3">
        <span>
          <span className="sr-only">Play </span>
          <span className="block text-xs font-medium tracking-wide text-zinc-300 uppercase">Customer story</span>
          <span className="mt-1 block text-lg font-semibold text-white">{card.title}</span>
        </span>
        <span className="flex size-12 shrink-0 items-center justify-center rounded-full bg-white text-zinc-950 shadow-lg transition group-hover:scale-110">
          <PlayIcon className="ml-0.5 size-5 fill-current" aria-hidden="true" />
        </span>
      </span>
    </button>
  );
}
