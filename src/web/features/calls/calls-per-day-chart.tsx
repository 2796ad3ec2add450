import { format } from "date-fns";
import type { CallStats } from "@shared/call-records";

/** Longer periods are drawn by month, or each bar would be thinner than a pixel. */
const MAX_DAY_BARS = 120;
/** A bar is never wider than a fourteenth of the chart: one day of data is a bar, not a block. */
const MIN_SLOTS = 14;
const HEIGHT = 120;
const WIDTH = 600;

interface Bar {
  key: string;
  label: string;
  calls: number;
}

const parseDay = (day: string) => {
  const [y, m, d] = day.split("-").map(Number);
  return new Date(y!, m! - 1, d!);
};
const dayKey = (date: Date) => format(date, "yyyy-MM-dd");

/**
 * Every day (or month) from the period's start to its end, empty ones included, so gaps read as
 * quiet days rather than disappearing. `from`/`to` are the view's days, when chosen.
 */
export function chartBars(perDay: CallStats["per_day"], from?: string, to?: string): Bar[] {
  if (perDay.length === 0 && !(from && to)) return [];
  const first = parseDay(from ?? perDay[0]!.day);
  const last = parseDay(to ?? perDay[perDay.length - 1]!.day);
  const counts = new Map(perDay.map((d) => [d.day, d.calls]));
  const days: Bar[] = [];
  for (let d = first; d <= last; d = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1)) {
    days.push({ key: dayKey(d), label: format(d, "MMM d, yyyy"), calls: counts.get(dayKey(d)) ?? 0 });
  }
  if (days.length <= MAX_DAY_BARS) return days;
  const months = new Map<string, Bar>();
  for (const day of days) {
    const key = day.key.slice(0, 7);
    const bar = months.get(key) ?? { key, label: format(parseDay(`${key}-01`), "MMM yyyy"), calls: 0 };
    bar.calls += day.calls;
    months.set(key, bar);
  }
  return [...months.values()];
}

/** Calls per day as plain SVG bars: no chart library to download for one picture. */
export function CallsPerDayChart({ perDay, from, to }: { perDay: CallStats["per_day"]; from?: string; to?: string }) {
  const bars = chartBars(perDay, from, to);
  const byMonth = bars.length > 0 && bars[0]!.key.length === 7;
  const max = Math.max(1, ...bars.map((b) => b.calls));
  const step = WIDTH / Math.max(bars.length, MIN_SLOTS);
  // Fewer bars than slots are centred.
  const offset = (WIDTH - step * bars.length) / 2;
  const gap = Math.min(2, step * 0.2);
  const title = byMonth ? "Calls per month" : "Calls per day";
  return (
    <figure className="grid gap-2 rounded-lg border bg-card p-4" data-testid="calls-chart">
      <figcaption className="flex items-baseline justify-between text-sm">
        <span className="font-medium">{title}</span>
        <span className="text-xs text-muted-foreground tabular-nums">max {max}</span>
      </figcaption>
      {bars.length === 0 ? (
        <p className="py-8 text-center text-sm text-muted-foreground">No calls in this period</p>
      ) : (
        <>
          <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" className="h-32 w-full" role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.calls}`).join(", ")}`}>
            <line x1={0} x2={WIDTH} y1={HEIGHT - 0.5} y2={HEIGHT - 0.5} className="stroke-border" strokeWidth={1} />
            {bars.map((bar, i) => {
              const h = (bar.calls / max) * (HEIGHT - 4);
              return (
                <rect
                  key={bar.key}
                  data-testid="chart-bar"
                  data-day={bar.key}
                  data-calls={bar.calls}
                  x={offset + i * step + gap / 2}
                  width={Math.max(0.5, step - gap)}
                  y={HEIGHT - h}
                  height={h}
                  rx={Math.min(2, step / 4)}
                  className="fill-primary/80"
                >
                  <title>{`${bar.label}: ${bar.calls} ${bar.calls === 1 ? "call" : "calls"}`}</title>
                </rect>
              );
            })}
          </svg>
          <div className="flex justify-between text-xs text-muted-foreground">
            <span>{bars[0]!.label}</span>
            {bars.length > 1 && <span>{bars[bars.length - 1]!.label}</span>}
          </div>
        </>
      )}
    </figure>
  );
}
