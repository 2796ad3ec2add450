import { describe, expect, it } from "vitest";
import { estimatePerMinute, isPrivateAddress, MODEL_PRICES, pipelineCost, TYPICAL_MINUTE, type PricedPipeline } from "./service-prices.ts";

const listed: PricedPipeline = {
  transcriber: { protocol: "deepgram", model: null, unitPrice: null },
  model: { protocol: "openai-compatible", model: "gpt-4o-mini", unitPrice: null },
  voice: { protocol: "elevenlabs", model: null, unitPrice: null },
};

describe("a pipeline's prices", () => {
  it("prices a typical minute from the list: the transcriber's default model, the model's tokens, the voice's characters", () => {
    const m = MODEL_PRICES["gpt-4o-mini"]!;
    const expected = 0.0077 + (TYPICAL_MINUTE.modelInputTokens * m.input + TYPICAL_MINUTE.modelOutputTokens * m.output) / 1e6 + (450 * 50) / 1e6;
    expect(estimatePerMinute(listed)).toBeCloseTo(expected, 6);
  });

  it("has no total for a model the list does not know, until its provider gives its own price", () => {
    const unknown = { ...listed, model: { protocol: "openai-compatible" as const, model: "my-llama", unitPrice: null } };
    expect(estimatePerMinute(unknown)).toBeNull();
    expect(pipelineCost(TYPICAL_MINUTE, unknown).lines.find((l) => l.kind === "model")!.cost).toBeNull();
    expect(estimatePerMinute({ ...unknown, model: { ...unknown.model, unitPrice: 0 } })).toBeCloseTo(0.0077 + (450 * 50) / 1e6, 6);
  });

  it("costs nothing when every provider's own price is 0", () => {
    const free: PricedPipeline = {
      transcriber: { ...listed.transcriber, unitPrice: 0 },
      model: { ...listed.model, unitPrice: 0 },
      voice: { ...listed.voice, unitPrice: 0 },
    };
    expect(pipelineCost(TYPICAL_MINUTE, free).total).toBe(0);
  });
});

describe("whether a service is on the customer's network", () => {
  it.each(["http://localhost:8000/v1", "http://127.0.0.1:11434/v1", "http://10.1.2.3", "http://172.20.0.5:9000", "https://192.168.1.10", "http://[::1]:8880", "http://[fd12::1]/v1"])("%s stays", (url) => {
    expect(isPrivateAddress(url)).toBe(true);
  });
  it.each(["https://api.openai.com/v1", "https://api.deepgram.com", "http://172.32.0.1", "http://8.8.8.8", "not a url"])("%s leaves", (url) => {
    expect(isPrivateAddress(url)).toBe(false);
  });
});
