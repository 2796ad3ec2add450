/**
 * Adds up the usage the provider reports during a call — each `response.done.response.usage`
 * and each input transcription's `usage` (protocols §1.10) — and prices it per model with
 * provider-prices.ts. The result is stored on the call record beside the billed tariff.
 */
import type { ProviderCost, ProviderCostLine } from "../../shared/call-records.ts";
import { realtimePrices, transcriptionPrice } from "./provider-prices.ts";
import type { ResponseUsage, TranscriptionUsage } from "./providers/realtime-protocol.ts";

type Totals = Omit<ProviderCostLine, "model" | "kind" | "cost">;
const empty = (): Totals => ({ text_in: 0, text_cached: 0, audio_in: 0, audio_cached: 0, text_out: 0, audio_out: 0, seconds: 0 });

export class UsageMeter {
  private readonly realtime = empty();
  private readonly transcription = empty();

  constructor(
    private readonly realtimeModel: string,
    private readonly transcriptionModel: string,
  ) {}

  /**
   * One response's usage. Cached tokens are a subset of the input tokens. When the provider leaves
   * out the text/audio split, the tokens count as text (the cheaper side: never overstated).
   */
  response(usage: ResponseUsage | null | undefined): void {
    if (!usage) return;
    const inDetails = usage.input_token_details;
    const outDetails = usage.output_token_details;
    const cached = inDetails?.cached_tokens_details;
    const audioIn = inDetails?.audio_tokens ?? 0;
    const textIn = inDetails ? (inDetails.text_tokens ?? 0) + (inDetails.image_tokens ?? 0) : (usage.input_tokens ?? 0);
    const audioCached = Math.min(cached?.audio_tokens ?? 0, audioIn);
    const textCached = Math.min((cached?.text_tokens ?? 0) + (cached?.image_tokens ?? 0), textIn);
    const t = this.realtime;
    t.audio_cached += audioCached;
    t.audio_in += audioIn - audioCached;
    t.text_cached += textCached;
    t.text_in += textIn - textCached;
    t.audio_out += outDetails?.audio_tokens ?? 0;
    t.text_out += outDetails ? (outDetails.text_tokens ?? 0) : (usage.output_tokens ?? 0);
  }

  /** One input transcription's usage: tokens, or seconds for duration-billed models. */
  transcribed(usage: TranscriptionUsage | null | undefined): void {
    if (!usage) return;
    const t = this.transcription;
    if (usage.type === "duration") {
      t.seconds += usage.seconds;
      return;
    }
    const audio = usage.input_token_details?.audio_tokens;
    t.audio_in += audio ?? usage.input_tokens ?? 0;
    t.text_in += audio === undefined ? 0 : (usage.input_token_details?.text_tokens ?? 0);
    t.text_out += usage.output_tokens ?? 0;
  }

  summary(): ProviderCost {
    const lines: ProviderCostLine[] = [
      { model: this.realtimeModel, kind: "realtime", ...this.realtime, cost: this.realtimeCost() },
      { model: this.transcriptionModel, kind: "transcription", ...this.transcription, cost: this.transcriptionCost() },
    ];
    const total = lines.some((l) => l.cost === null) ? null : roundUsd(lines.reduce((sum, l) => sum + (l.cost ?? 0), 0));
    return { total, lines };
  }

  private realtimeCost(): number | null {
    const p = realtimePrices(this.realtimeModel);
    if (!p) return null;
    const t = this.realtime;
    const micro =
      t.text_in * p.textIn + t.text_cached * p.textCached + t.audio_in * p.audioIn + t.audio_cached * p.audioCached + t.text_out * p.textOut + t.audio_out * p.audioOut;
    return roundUsd(micro / 1e6);
  }

  private transcriptionCost(): number | null {
    const t = this.transcription;
    const p = transcriptionPrice(this.transcriptionModel);
    if (!p) return t.audio_in + t.text_in + t.text_out + t.seconds === 0 ? 0 : null;
    if (p.kind === "minutes") return roundUsd((t.seconds / 60) * p.perMinute);
    return roundUsd(((t.audio_in + t.text_in) * p.input + t.text_out * p.output) / 1e6);
  }
}

/** Provider costs are fractions of a cent per turn: kept to a millionth of a dollar. */
const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;
