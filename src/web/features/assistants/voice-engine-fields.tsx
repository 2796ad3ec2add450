import { useEffect, useId, useState } from "react";
import { Controller } from "react-hook-form";
import { useQuery } from "@tanstack/react-query";
import { DEFAULT_TURN_END, GPT_LIVE_MODELS, TURN_ENDS, type TurnEnd, GPT_LIVE_VOICES, PROTOCOL_INFO, PROVIDER_KINDS, providerBaseUrl, VOICE_ENGINE_TEXTS as T, type GptLiveEngine, type PipelineEngine, type Provider, type ProviderKind, type VoiceEngine } from "@shared/providers";
import { estimatePerMinute, isPrivateAddress } from "@shared/service-prices";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Button } from "@/components/ui/button";
import { LabelledSelect } from "@/components/select-field";
import { apiBlob, apiList } from "@/lib/api";
import { queryKeys } from "@/lib/query-keys";
import type { FormSectionProps } from "./form-section";

type VoiceEngineFieldsProps = Pick<FormSectionProps, "control" | "errors">;

const selectClass = "h-9 rounded-md border bg-background px-2 text-sm";
const SLOT_LABELS: Record<ProviderKind, string> = { transcriber: T.transcriber, model: T.model, voice: T.voiceProvider };

/** The first message of a nested error (a slot's provider or name). */
function firstMessage(error: unknown, depth = 0): string | undefined {
  if (!error || typeof error !== "object" || depth > 3) return undefined;
  // `ref` is the field's element: never walked.
  for (const [key, value] of Object.entries(error)) {
    if (key === "ref") continue;
    if (value && typeof value === "object" && typeof (value as { message?: unknown }).message === "string") return (value as { message: string }).message;
    const nested = firstMessage(value, depth + 1);
    if (nested) return nested;
  }
  return undefined;
}

/** A new pipeline: the first provider of each kind, the names left for the user to fill. */
function newPipeline(providers: Provider[]): PipelineEngine {
  return withFirstProviders({ type: "pipeline", transcriber: { provider_id: "", model: null, language: null }, model: { provider_id: "", model: "" }, voice: { provider_id: "", voice: "", model: null }, turn_end: DEFAULT_TURN_END }, providers);
}

/** Each slot with no provider yet takes the first of its kind. */
function withFirstProviders(engine: PipelineEngine, providers: Provider[]): PipelineEngine {
  const first = (kind: ProviderKind, chosen: string) => chosen || (providers.find((p) => p.kind === kind)?.id ?? "");
  return {
    ...engine,
    transcriber: { ...engine.transcriber, provider_id: first("transcriber", engine.transcriber.provider_id) },
    model: { ...engine.model, provider_id: first("model", engine.model.provider_id) },
    voice: { ...engine.voice, provider_id: first("voice", engine.voice.provider_id) },
  };
}

/** Mounted once the providers have come, for a pipeline chosen before: fills its empty slots, once. */
function FillOnLoad({ engine, providers, set, done }: { engine: PipelineEngine; providers: Provider[]; set: (next: VoiceEngine) => void; done: () => void }) {
  useEffect(() => {
    set(withFirstProviders(engine, providers));
    done();
    // Once, on mount: later changes are the user's.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return null;
}

/** Voices a short sample through the chosen voice provider (the server asks the service) and plays it. */
function PreviewButton({ providerId, voice, model }: { providerId: string; voice: string; model: string | null }) {
  const [busy, setBusy] = useState(false);
  const [src, setSrc] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => () => void (src && URL.revokeObjectURL(src)), [src]);
  const preview = async () => {
    setBusy(true);
    setError(null);
    try {
      const blob = await apiBlob(`/api/providers/${providerId}/preview`, { voice, model });
      setSrc(URL.createObjectURL(blob));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="grid gap-1">
      <Button type="button" variant="outline" size="sm" disabled={busy || !providerId || !voice.trim()} onClick={() => void preview()}>
        {busy ? T.previewing : T.preview}
      </Button>
      {src && <audio data-testid="voice-preview" src={src} autoPlay controls className="h-8 w-full" />}
      {error && <p className="text-xs text-destructive">{error}</p>}
    </div>
  );
}

/** The estimate of a minute and where the audio goes, for the chosen engine (texts in shared/providers.ts). */
function EngineFacts({ engine, providers }: { engine: VoiceEngine; providers: Provider[] }) {
  if (engine.type !== "pipeline") {
    return (
      <p className="text-xs text-muted-foreground" data-testid="engine-network">
        {T.openaiLeaves}
      </p>
    );
  }
  const chosen = PROVIDER_KINDS.map((kind) => providers.find((p) => p.id === engine[kind].provider_id));
  if (chosen.some((p) => !p)) return null;
  const [transcriber, model, voice] = chosen as [Provider, Provider, Provider];
  const estimate = estimatePerMinute({
    transcriber: { protocol: transcriber.protocol, model: engine.transcriber.model, unitPrice: transcriber.unit_price },
    model: { protocol: model.protocol, model: engine.model.model || null, unitPrice: model.unit_price },
    voice: { protocol: voice.protocol, model: engine.voice.model, unitPrice: voice.unit_price },
  });
  const outside = [transcriber, model, voice].filter((p) => !isPrivateAddress(providerBaseUrl(p)));
  return (
    <div className="grid gap-1 text-xs text-muted-foreground">
      <p data-testid="engine-estimate" title={T.perMinuteHint}>
        {estimate === null ? T.perMinuteUnknown : T.perMinute(estimate)}
      </p>
      <p data-testid="engine-network">
        {outside.length === 0 ? T.staysOnNetwork : T.leavesNetwork(outside.map((p) => `${p.name} (${PROTOCOL_INFO[p.protocol].label})`).join(", "))}
      </p>
    </div>
  );
}

const NEW_GPT_LIVE: GptLiveEngine = { type: "gpt-live", model: GPT_LIVE_MODELS[0], voice: GPT_LIVE_VOICES[0] };

/** The engine the Engine select switches to. */
function engineOf(type: string, providers: Provider[]): VoiceEngine {
  if (type === "pipeline") return newPipeline(providers);
  if (type === "gpt-live") return NEW_GPT_LIVE;
  return { type: "realtime" };
}

/** OpenAI Realtime or GPT-Live (speech to speech), or a pipeline of a transcriber, a language model and a voice from Settings → Providers. */
export function VoiceEngineFields({ control, errors }: VoiceEngineFieldsProps) {
  const headingId = useId();
  const providers = useQuery({ queryKey: queryKeys.providers, queryFn: () => apiList<Provider>("/api/providers") });
  const list = providers.data ?? [];
  // Pipeline chosen while the providers were still loading: its slots are filled when they come.
  const [fillOnLoad, setFillOnLoad] = useState(false);
  const error = errors.voice_engine;
  const message = error?.message ?? firstMessage(error);
  return (
    // Not labelled by its heading: "Voice" must keep naming only the Realtime voice field.
    <fieldset className="grid gap-3">
      <Label id={headingId} className="text-base">
        {T.heading}
      </Label>
      <Controller
        control={control}
        name="voice_engine"
        render={({ field }) => {
          const engine = (field.value ?? { type: "realtime" }) as VoiceEngine;
          const set = (next: VoiceEngine) => field.onChange(next);
          return (
            <div className="grid gap-3">
              <select aria-label={T.engine} className={selectClass} value={engine.type} onChange={(e) => {
                  set(engineOf(e.target.value, list));
                  setFillOnLoad(e.target.value === "pipeline" && !providers.isSuccess);
                }}>
                <option value="realtime">{T.realtime}</option>
                <option value="gpt-live">{T.gptLive}</option>
                <option value="pipeline">{T.pipeline}</option>
              </select>
              {engine.type === "gpt-live" && (
                <div className="grid gap-3 sm:grid-cols-2">
                  <select aria-label={T.gptLiveModel} className={selectClass} value={engine.model} onChange={(e) => set({ ...engine, model: e.target.value as GptLiveEngine["model"] })}>
                    {GPT_LIVE_MODELS.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                  <select aria-label={T.gptLiveVoice} className={selectClass} value={engine.voice} onChange={(e) => set({ ...engine, voice: e.target.value as GptLiveEngine["voice"] })}>
                    {GPT_LIVE_VOICES.map((v) => (
                      <option key={v} value={v}>
                        {v}
                      </option>
                    ))}
                  </select>
                </div>
              )}
              {engine.type === "pipeline" && fillOnLoad && providers.isSuccess && <FillOnLoad engine={engine} providers={list} set={set} done={() => setFillOnLoad(false)} />}
              {engine.type === "pipeline" && list.length === 0 && <p className="text-sm text-muted-foreground">{T.noProviders}</p>}
              {engine.type === "pipeline" && (
                <div className="grid gap-3 sm:grid-cols-2">
                  {PROVIDER_KINDS.map((kind) => (
                    <select
                      key={kind}
                      aria-label={SLOT_LABELS[kind]}
                      className={selectClass}
                      value={engine[kind].provider_id}
                      onChange={(e) => set({ ...engine, [kind]: { ...engine[kind], provider_id: e.target.value } })}
                    >
                      <option value="">{SLOT_LABELS[kind]}…</option>
                      {list
                        .filter((p) => p.kind === kind)
                        .map((p) => (
                          <option key={p.id} value={p.id}>
                            {p.name}
                          </option>
                        ))}
                    </select>
                  ))}
                  <Input aria-label={T.language} placeholder={`${T.language} (e.g. en)`} value={engine.transcriber.language ?? ""} onChange={(e) => set({ ...engine, transcriber: { ...engine.transcriber, language: e.target.value || null } })} />
                  <Input aria-label={T.modelName} placeholder={`${T.modelName} (e.g. gpt-4o-mini)`} value={engine.model.model} onChange={(e) => set({ ...engine, model: { ...engine.model, model: e.target.value } })} />
                  <Input aria-label={T.voiceId} placeholder={T.voiceId} value={engine.voice.voice} onChange={(e) => set({ ...engine, voice: { ...engine.voice, voice: e.target.value } })} />
                  <PreviewButton providerId={engine.voice.provider_id} voice={engine.voice.voice} model={engine.voice.model} />
                  <Input aria-label={T.voiceModel} placeholder={`${T.voiceModel} (optional)`} value={engine.voice.model ?? ""} onChange={(e) => set({ ...engine, voice: { ...engine.voice, model: e.target.value || null } })} />
                  <div className="sm:col-span-2">
                    <LabelledSelect
                      label={T.turnEnd}
                      description={T.turnEndHint}
                      placeholder={T.turnEnd}
                      options={TURN_ENDS.map((value) => ({ value, label: T.turnEnds[value] }))}
                      value={engine.turn_end ?? DEFAULT_TURN_END}
                      onValueChange={(value) => set({ ...engine, turn_end: value as TurnEnd })}
                    />
                  </div>
                </div>
              )}
              <EngineFacts engine={engine} providers={list} />
            </div>
          );
        }}
      />
      {message && <p className="text-sm text-destructive">{message}</p>}
    </fieldset>
  );
}
