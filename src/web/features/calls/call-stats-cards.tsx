import { formatDuration } from "@shared/calls";
import { COST_TEXTS, formatCost, STATS_TEXTS, type CallStats } from "@shared/call-records";
import { Skeleton } from "@/components/ui/skeleton";
import { CallsPerDayChart } from "./calls-per-day-chart";

interface CallStatsCardsProps {
  stats: CallStats | undefined;
  from?: string;
  to?: string;
  /** What the figures cover, e.g. "All time" or "Mar 1, 2026 – Mar 31, 2026". */
  period: string;
}

const percent = (share: number | null) => (share === null ? "N/A" : `${Math.round(share * 100)}%`);

/** Calls, minutes, cost and average duration of the chosen period, and the calls per day. */
export function CallStatsCards({ stats, from, to, period }: CallStatsCardsProps) {
  const cards = [
    { label: "Calls", value: stats ? stats.calls.toLocaleString("en-US") : null },
    { label: "Minutes", value: stats ? stats.minutes.toLocaleString("en-US", { maximumFractionDigits: 1 }) : null },
    { label: "Cost", value: stats ? formatCost(stats.cost) : null, hint: COST_TEXTS.statsHint },
    { label: "Average duration", value: stats ? (stats.average_duration_ms === null ? "N/A" : formatDuration(stats.average_duration_ms)) : null },
    { label: STATS_TEXTS.medianTurnLatency, value: stats ? (stats.median_turn_latency_ms === null ? "N/A" : `${stats.median_turn_latency_ms} ms`) : null, hint: STATS_TEXTS.medianTurnLatencyHint },
    // Of the calls the post-call analysis judged pass/fail; transfers are hand-offs to a person.
    { label: "Success rate", value: stats ? percent(stats.success.success_rate) : null },
    { label: "Transfer rate", value: stats ? percent(stats.transfer_rate) : null },
    { label: "Containment", value: stats ? percent(stats.containment) : null },
  ];
  const categories = stats?.success.categories ?? [];
  return (
    <section className="grid gap-3" aria-label="Summary">
      <p className="text-xs text-muted-foreground" data-testid="stats-period">
        {period}
      </p>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-8">
        {cards.map((card) => (
          <div key={card.label} className="grid gap-1 rounded-lg border bg-card p-4" data-testid="stat-card" data-stat={card.label} title={"hint" in card ? card.hint : undefined}>
            <span className="text-xs font-medium text-muted-foreground">{card.label}</span>
            {card.value === null ? <Skeleton className="h-7 w-16" /> : <span className="text-2xl font-semibold tabular-nums">{card.value}</span>}
          </div>
        ))}
      </div>
      {categories.length > 0 && (
        <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm" aria-label="Outcome categories" data-testid="category-shares">
          {categories.map((c) => (
            <li key={c.category}>
              <span className="font-medium">{c.category}</span> <span className="tabular-nums text-muted-foreground">{percent(c.share)}</span>
            </li>
          ))}
        </ul>
      )}
      {stats && <CallsPerDayChart perDay={stats.per_day} from={from} to={to} />}
    </section>
  );
}
