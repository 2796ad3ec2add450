/**
 * What the AI provider charges, per model, in USD per 1M tokens (protocols §1.11,
 * checked 2026-11-22). The one place to update when prices change. Records keep the cost computed
 * at the end of each call, so a change here never rewrites past calls.
 */

export interface TokenPrices {
  textIn: number;
  textCached: number;
  textOut: number;
  audioIn: number;
  audioCached: number;
  audioOut: number;
}

/** Transcription models: tokens (input of any kind, output text) or, for some, minutes. */
export type TranscriptionPrice = { kind: "tokens"; input: number; output: number } | { kind: "minutes"; perMinute: number };

const REALTIME_FULL: TokenPrices = { textIn: 4, textCached: 0.4, textOut: 24, audioIn: 32, audioCached: 0.4, audioOut: 64 };
const REALTIME_MINI: TokenPrices = { textIn: 0.6, textCached: 0.06, textOut: 2.4, audioIn: 10, audioCached: 0.3, audioOut: 20 };

const REALTIME_PRICES: Record<string, TokenPrices> = {
  "gpt-realtime-2.1": REALTIME_FULL,
  "gpt-realtime-2.1-mini": REALTIME_MINI,
  "gpt-realtime-2": REALTIME_FULL,
  "gpt-realtime-1.5": { ...REALTIME_FULL, textOut: 16 },
  "gpt-realtime": { ...REALTIME_FULL, textOut: 16 },
  // No cached-text price is published for the mini; the table's text-in price is the safe side.
  "gpt-realtime-mini": { ...REALTIME_MINI, textCached: 0.6 },
};

const TRANSCRIPTION_PRICES: Record<string, TranscriptionPrice> = {
  "gpt-4o-transcribe": { kind: "tokens", input: 2.5, output: 10 },
  "gpt-4o-mini-transcribe": { kind: "tokens", input: 1.25, output: 5 },
  "gpt-realtime-whisper": { kind: "minutes", perMinute: 0.017 },
};

/**
 * Text models of the Responses API (post-call analysis): input, cached input, output. Reasoning
 * tokens are billed as output and are already inside `output_tokens`.
 */
export interface TextPrices {
  input: number;
  cached: number;
  output: number;
}

const TEXT_PRICES: Record<string, TextPrices> = {
  "gpt-5": { input: 1.25, cached: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cached: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cached: 0.005, output: 0.4 },
  "gpt-4.1": { input: 2, cached: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cached: 0.1, output: 1.6 },
  "gpt-4o": { input: 2.5, cached: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cached: 0.075, output: 0.6 },
};

/** An exact name, or a dated snapshot of one ("gpt-realtime-2025-08-28" is priced as "gpt-realtime"). */
function lookup<T>(table: Record<string, T>, model: string): T | null {
  if (table[model]) return table[model];
  const base = model.replace(/-\d{4}-\d{2}-\d{2}$/, "");
  return table[base] ?? null;
}

export const realtimePrices = (model: string) => lookup(REALTIME_PRICES, model);
export const transcriptionPrice = (model: string) => lookup(TRANSCRIPTION_PRICES, model);
export const textPrices = (model: string) => lookup(TEXT_PRICES, model);

/** USD of one Responses API answer; null for a model the table does not know. */
export function textCost(model: string, usage: { input_tokens: number; cached_tokens: number; output_tokens: number }): number | null {
  const price = textPrices(model);
  if (!price) return null;
  const fresh = Math.max(0, usage.input_tokens - usage.cached_tokens);
  return (fresh * price.input + usage.cached_tokens * price.cached + usage.output_tokens * price.output) / 1_000_000;
}
