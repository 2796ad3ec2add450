import type { CallRecord, ProviderCostLine } from "@shared/call-records";
import { COST_TEXTS, formatCallCost, formatCost } from "@shared/call-records";

const tokens = (n: number) => n.toLocaleString("en-US");
/** Provider costs are fractions of a cent: four decimals, unlike the billed tariff's two. */
const usd = (n: number | null) => (n === null ? "No price for this model" : `$${n.toFixed(4)}`);

function usageText(line: ProviderCostLine): string {
  if (line.characters !== undefined) return `${tokens(line.characters)} characters voiced`;
  if (line.seconds > 0) return `${line.seconds.toFixed(1)} s of audio`;
  const parts = [
    line.audio_in + line.audio_cached > 0 && `${tokens(line.audio_in + line.audio_cached)} audio in${line.audio_cached ? ` (${tokens(line.audio_cached)} cached)` : ""}`,
    line.text_in + line.text_cached > 0 && `${tokens(line.text_in + line.text_cached)} text in${line.text_cached ? ` (${tokens(line.text_cached)} cached)` : ""}`,
    line.audio_out > 0 && `${tokens(line.audio_out)} audio out`,
    line.text_out > 0 && `${tokens(line.text_out)} text out`,
  ].filter(Boolean);
  return parts.length ? `${parts.join(", ")} tokens` : "No usage reported";
}

const COST_LINE_LABELS: Record<ProviderCostLine["kind"], string> = { realtime: "Conversation", transcription: "Transcription", analysis: "Analysis", transcriber: "Transcriber", model: "Language model", voice: "Voice" };

/**
 * A test call: the tariff beside what it cost at the AI provider. A phone call: its real cost
 * first — the AI provider's usage plus Twilio's price, which Twilio gives a while after the call
 * ends — and no tariff, which does not apply to it.
 */
export function CallCostBreakdown({ call }: { call: Pick<CallRecord, "cost" | "cost_basis" | "provider_cost" | "telephony_cost" | "end_time"> }) {
  const provider = call.provider_cost;
  const providerFigure = provider ? usd(provider.total) : call.end_time ? "Not recorded" : "When the call ends";
  const field = (name: string, label: string, value: string, hint?: string) => (
    <div className="grid gap-1" data-field={name} title={hint}>
      <dt className="text-xs font-medium text-muted-foreground">{label}</dt>
      <dd className="tabular-nums">{value}</dd>
    </div>
  );
  return (
    <div className="grid gap-3 rounded-lg border p-4 text-sm" data-testid="cost-breakdown">
      {call.cost_basis === "provider" ? (
        <dl className="grid grid-cols-3 gap-4">
          {field("Provider cost", COST_TEXTS.basis.provider, formatCallCost(call.cost, "provider"), COST_TEXTS.basisHint.provider)}
          {field("AI provider", COST_TEXTS.aiProvider, providerFigure)}
          {field(
            "Twilio",
            COST_TEXTS.telephony,
            call.telephony_cost !== null ? usd(call.telephony_cost) : call.end_time ? COST_TEXTS.telephonyPending : "When the call ends",
          )}
        </dl>
      ) : (
        <dl className="grid grid-cols-2 gap-4">
          {field("Billed", "Billed (tariff)", formatCost(call.cost), COST_TEXTS.basisHint.tariff)}
          {field("Provider cost", "AI provider cost", providerFigure)}
        </dl>
      )}
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
