import type { CallRecord, ProviderCostLine } from "@shared/call-records";
import { formatCost } from "@shared/call-records";

const tokens = (n: number) => n.toLocaleString("en-US");
/** Provider costs are fractions of a cent: four decimals, unlike the billed tariff's two. */
const usd = (n: number | null) => (n === null ? "No price for this model" : `$${n.toFixed(4)}`);

function usageText(line: ProviderCostLine): string {
  if (line.seconds > 0) return `${line.seconds.toFixed(1)} s of audio`;
  const parts = [
    line.audio_in + line.audio_cached > 0 && `${tokens(line.audio_in + line.audio_cached)} audio in${line.audio_cached ? ` (${tokens(line.audio_cached)} cached)` : ""}`,
    line.text_in + line.text_cached > 0 && `${tokens(line.text_in + line.text_cached)} text in${line.text_cached ? ` (${tokens(line.text_cached)} cached)` : ""}`,
    line.audio_out > 0 && `${tokens(line.audio_out)} audio out`,
    line.text_out > 0 && `${tokens(line.text_out)} text out`,
  ].filter(Boolean);
  return parts.length ? `${parts.join(", ")} tokens` : "No usage reported";
}

const COST_LINE_LABELS: Record<ProviderCostLine["kind"], string> = { realtime: "Conversation", transcription: "Transcription", analysis: "Analysis" };

/** The billed tariff beside what the call cost at the AI provider (from the usage it reported). */
export function CallCostBreakdown({ call }: { call: Pick<CallRecord, "cost" | "provider_cost" | "end_time"> }) {
  const provider = call.provider_cost;
  return (
    <div className="grid gap-3 rounded-lg border p-4 text-sm" data-testid="cost-breakdown">
      <dl className="grid grid-cols-2 gap-4">
        <div className="grid gap-1" data-field="Billed">
          <dt className="text-xs font-medium text-muted-foreground">Billed (tariff)</dt>
          <dd className="tabular-nums">{formatCost(call.cost)}</dd>
        </div>
        <div className="grid gap-1" data-field="Provider cost">
          <dt className="text-xs font-medium text-muted-foreground">AI provider cost</dt>
          <dd className="tabular-nums">{provider ? usd(provider.total) : call.end_time ? "Not recorded" : "When the call ends"}</dd>
        </div>
      </dl>
      {provider && (
        <ul className="grid gap-2 border-t pt-3">
          {provider.lines.map((line) => (
            <li key={`${line.kind}-${line.model}`} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1" data-testid="cost-line">
              <span>
                <span className="font-medium">{COST_LINE_LABELS[line.kind]}</span>{" "}
                <span className="font-mono text-xs text-muted-foreground">{line.model}</span>
                <span className="block text-xs text-muted-foreground">{usageText(line)}</span>
              </span>
              <span className="tabular-nums">{usd(line.cost)}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
