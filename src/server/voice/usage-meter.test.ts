import { describe, expect, it } from "vitest";
import { parseServerEvent } from "./providers/realtime-protocol.ts";
import { UsageMeter } from "./usage-meter.ts";

/** protocols §1.10's example usage. */
const USAGE = {
  total_tokens: 1234,
  input_tokens: 1000,
  output_tokens: 234,
  input_token_details: { text_tokens: 400, audio_tokens: 580, image_tokens: 20, cached_tokens: 700, cached_tokens_details: { text_tokens: 300, audio_tokens: 400, image_tokens: 0 } },
  output_token_details: { text_tokens: 50, audio_tokens: 184 },
};

describe("UsageMeter", () => {
  it("prices responses and transcription per model with the protocols' formula", () => {
    const meter = new UsageMeter("gpt-realtime-2.1", "gpt-4o-mini-transcribe");
    meter.response(USAGE);
    meter.transcribed({ type: "tokens", input_tokens: 100, output_tokens: 20, input_token_details: { audio_tokens: 90, text_tokens: 10 } });
    const cost = meter.summary();
    // Uncached text 420-300 = 120 at $4, cached 300 at $0.40, uncached audio 180 at $32, cached 400 at $0.40,
    // text out 50 at $24, audio out 184 at $64 → 19,496 µ$; transcription 100 at $1.25 + 20 at $5 → 225 µ$.
    expect(cost.lines).toEqual([
      { model: "gpt-realtime-2.1", kind: "realtime", text_in: 120, text_cached: 300, audio_in: 180, audio_cached: 400, text_out: 50, audio_out: 184, seconds: 0, cost: 0.019496 },
      { model: "gpt-4o-mini-transcribe", kind: "transcription", text_in: 10, text_cached: 0, audio_in: 90, audio_cached: 0, text_out: 20, audio_out: 0, seconds: 0, cost: 0.000225 },
    ]);
    expect(cost.total).toBe(0.019721);
  });

  it("adds up every response, counts unsplit tokens as text and prices dated snapshots as their model", () => {
    const meter = new UsageMeter("gpt-realtime-2025-08-28", "gpt-realtime-whisper");
    meter.response({ input_tokens: 1000, output_tokens: 500 });
    meter.response({ input_tokens: 1000, output_tokens: 500 });
    meter.response(null);
    meter.transcribed({ type: "duration", seconds: 90 });
    const [realtime, asr] = meter.summary().lines;
    expect(realtime).toMatchObject({ text_in: 2000, text_out: 1000, cost: (2000 * 4 + 1000 * 16) / 1e6 });
    expect(asr).toMatchObject({ seconds: 90, cost: 0.0255 });
  });

  it("leaves the total unknown for a model without a price, rather than guessing", () => {
    const meter = new UsageMeter("some-future-model", "gpt-4o-transcribe");
    meter.response(USAGE);
    expect(meter.summary()).toMatchObject({ total: null, lines: [{ cost: null }, { cost: 0 }] });
  });
});

describe("usage on the wire", () => {
  it("is read from response.done and transcription events; an unreadable usage drops only itself", () => {
    const done = parseServerEvent(JSON.stringify({ type: "response.done", response: { id: "resp_1", status: "completed", output: [], usage: USAGE } }));
    expect(done.kind === "event" && done.event.type === "response.done" && done.event.response.usage).toMatchObject({ input_tokens: 1000 });
    const odd = parseServerEvent(JSON.stringify({ type: "response.done", response: { id: "resp_2", output: [], usage: { input_tokens: "many" } } }));
    expect(odd.kind === "event" && odd.event.type === "response.done" && odd.event.response.usage).toBeNull();
    const asr = parseServerEvent(
      JSON.stringify({ type: "conversation.item.input_audio_transcription.completed", item_id: "item_1", transcript: "hi", usage: { type: "duration", seconds: 2.5 } }),
    );
    expect(asr.kind === "event" && asr.event.type === "conversation.item.input_audio_transcription.completed" && asr.event.usage).toEqual({ type: "duration", seconds: 2.5 });
  });
});
