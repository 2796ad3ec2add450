/**
 * List prices of a pipeline's services (USD), in one place: what a transcriber, a language model
 * and a voice charge per unit of what they bill. Each protocol's default model stands for a model
 * the table does not name only when the service bills by the unit whatever the model (audio
 * minutes, characters); a language model the table does not name is unpriced (its cost is null)
 * unless its provider sets its own unit price in Settings → Providers (`unit_price`: 0 for a model
 * run in-house, or a negotiated price).
 *
 * Prices as the vendors' pricing pages listed them on SERVICE_PRICES_AS_OF: check them again when
 * a vendor changes its prices, and change the date with them.
 */
import type { ProviderCost, ProviderCostLine } from "./call-records.js";
import type { ProviderProtocol } from "./providers.js";

export const SERVICE_PRICES_AS_OF = "2026-11-28";

/** A transcriber bills minutes of audio heard. */
export const TRANSCRIBER_PRICES: Record<"deepgram" | "openai-transcription", { default: string; perMinute: Record<string, number> }> = {
  deepgram: { default: "nova-3", perMinute: { "nova-3": 0.0077, "nova-2": 0.0058 } },
  "openai-transcription": { default: "gpt-4o-transcribe", perMinute: { "gpt-4o-transcribe": 0.006, "gpt-4o-mini-transcribe": 0.003, "whisper-1": 0.006 } },
};

/** A language model bills tokens: per million in (the prompt) and out (the answer). */
export const MODEL_PRICES: Record<string, { input: number; output: number }> = {
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "claude-sonnet-4-5": { input: 3, output: 15 },
  "claude-sonnet-4-20250514": { input: 3, output: 15 },
  "claude-haiku-4-5": { input: 1, output: 5 },
  "claude-3-5-haiku-latest": { input: 0.8, output: 4 },
  "llama-3.3-70b-versatile": { input: 0.59, output: 0.79 },
  "llama-3.1-8b-instant": { input: 0.05, output: 0.08 },
};

/** A voice bills characters voiced: per million. */
export const VOICE_PRICES: Record<"elevenlabs" | "cartesia" | "openai-speech", { default: string; perMillionCharacters: Record<string, number> }> = {
  elevenlabs: { default: "eleven_flash_v2_5", perMillionCharacters: { eleven_flash_v2_5: 50, eleven_turbo_v2_5: 50, eleven_multilingual_v2: 100 } },
  cartesia: { default: "sonic-2", perMillionCharacters: { "sonic-2": 30, "sonic-turbo": 30 } },
  "openai-speech": { default: "tts-1", perMillionCharacters: { "tts-1": 15, "tts-1-hd": 30, "gpt-4o-mini-tts": 12 } },
};

/** What a pipeline call used of each service (pipeline-session.ts counts it). */
export interface PipelineUsage {
  transcriberSeconds: number;
  modelInputTokens: number;
  modelCachedTokens: number;
  modelOutputTokens: number;
  voiceCharacters: number;
}

/** One service of the pipeline as priced: its protocol, model and the provider's own unit price. */
export interface PricedService {
  protocol: ProviderProtocol;
  model: string | null;
  /** The provider's unit price (per minute, per million tokens, per million characters); null: list price. */
  unitPrice: number | null;
}

export interface PricedPipeline {
  transcriber: PricedService;
  model: PricedService;
  voice: PricedService;
}

/** Fractions of a cent per turn: kept to a millionth of a dollar. */
const roundUsd = (usd: number) => Math.round(usd * 1e6) / 1e6;

function transcriberModel(s: PricedService): string {
  return s.model ?? (s.protocol === "openai-transcription" ? TRANSCRIBER_PRICES["openai-transcription"].default : TRANSCRIBER_PRICES.deepgram.default);
}
function voiceTable(s: PricedService) {
  return VOICE_PRICES[s.protocol === "cartesia" || s.protocol === "openai-speech" ? s.protocol : "elevenlabs"];
}

/** Per minute of audio: the provider's price, the model's, the protocol's default, in that order. */
export function transcriberPerMinute(s: PricedService): number | null {
  if (s.unitPrice !== null) return s.unitPrice;
  const table = TRANSCRIBER_PRICES[s.protocol === "openai-transcription" ? "openai-transcription" : "deepgram"];
  return table.perMinute[transcriberModel(s)] ?? table.perMinute[table.default] ?? null;
}

/** Per million tokens in and out; null when neither the provider nor the table prices the model. */
export function modelPerMillion(s: PricedService): { input: number; output: number } | null {
  if (s.unitPrice !== null) return { input: s.unitPrice, output: s.unitPrice };
  return (s.model && MODEL_PRICES[s.model]) || null;
}

export function voicePerMillionCharacters(s: PricedService): number | null {
  if (s.unitPrice !== null) return s.unitPrice;
  const table = voiceTable(s);
  return table.perMillionCharacters[s.model ?? table.default] ?? table.perMillionCharacters[table.default] ?? null;
}

const zero = { text_in: 0, text_cached: 0, audio_in: 0, audio_cached: 0, text_out: 0, audio_out: 0, seconds: 0 } as const;

/** A pipeline call's cost, one line per service, in the shape the Realtime path's cost has. */
export function pipelineCost(usage: PipelineUsage, services: PricedPipeline): ProviderCost {
  const perMinute = transcriberPerMinute(services.transcriber);
  const tokens = modelPerMillion(services.model);
  const perChar = voicePerMillionCharacters(services.voice);
  const fresh = Math.max(0, usage.modelInputTokens - usage.modelCachedTokens);
  const lines: ProviderCostLine[] = [
    {
      model: transcriberModel(services.transcriber),
      kind: "transcriber",
      ...zero,
      seconds: usage.transcriberSeconds,
      cost: perMinute === null ? null : roundUsd((usage.transcriberSeconds / 60) * perMinute),
    },
    {
      model: services.model.model ?? "",
      kind: "model",
      ...zero,
      text_in: fresh,
      text_cached: usage.modelCachedTokens,
      text_out: usage.modelOutputTokens,
      // Cached tokens at the full input price: never understated.
      cost: tokens === null ? null : roundUsd((usage.modelInputTokens * tokens.input + usage.modelOutputTokens * tokens.output) / 1e6),
    },
    {
      model: services.voice.model ?? voiceTable(services.voice).default,
      kind: "voice",
      ...zero,
      characters: usage.voiceCharacters,
      cost: perChar === null ? null : roundUsd((usage.voiceCharacters * perChar) / 1e6),
    },
  ];
  const total = lines.some((l) => l.cost === null) ? null : roundUsd(lines.reduce((sum, l) => sum + (l.cost ?? 0), 0));
  return { total, lines };
}

/**
 * What the form's estimate takes a minute of a call to be: the caller's audio all heard by the
 * transcriber; six turns, each sending the conversation so far (instructions included, about
 * 1,500 tokens) and getting 40 tokens back; the assistant talking half the minute (about 75
 * words, 450 characters).
 */
export const TYPICAL_MINUTE: PipelineUsage = { transcriberSeconds: 60, modelInputTokens: 6 * 1500, modelCachedTokens: 0, modelOutputTokens: 6 * 40, voiceCharacters: 450 };

/** USD for a typical minute of the pipeline; null when a service has no price (a model the table does not know). */
export function estimatePerMinute(services: PricedPipeline): number | null {
  return pipelineCost(TYPICAL_MINUTE, services).total;
}

/** Whether a service's address is on the customer's own network: loopback or a private range (by IP literal or localhost). */
export function isPrivateAddress(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  if (/^f[cd][0-9a-f]{2}:/.test(host) || /^fe[89ab][0-9a-f]:/.test(host)) return true;
  const ip = host.match(/^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/);
  if (!ip) return false;
  const [a, b] = [Number(ip[1]), Number(ip[2])];
  return a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254);
}
