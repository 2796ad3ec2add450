import { describe, expect, it } from "vitest";
import { GETTING_STARTED_STEPS, GETTING_STARTED_TEXTS, nextStep, type GettingStarted } from "./getting-started.ts";

const progress = (done: string[]): GettingStarted => {
  const steps = GETTING_STARTED_STEPS.map((id) => ({ id, done: done.includes(id) }));
  return { steps, complete: steps.every((s) => s.done) };
};

describe("the getting-started checklist", () => {
  it("points at the first step not done, even when a later one is done already, and at none once complete", () => {
    expect(nextStep(progress([]))).toBe("openai_key");
    expect(nextStep(progress(["openai_key", "assistant", "twilio"]))).toBe("test_call");
    expect(nextStep(progress([...GETTING_STARTED_STEPS]))).toBeNull();
  });

  it("says where each step is done (an app page)", () => {
    for (const id of GETTING_STARTED_STEPS) expect(GETTING_STARTED_TEXTS.steps[id].to).toMatch(/^\/(settings#[a-z-]+|assistants|phone-numbers|calls)$/);
    expect(GETTING_STARTED_TEXTS.progress(2, 6)).toBe("2 of 6 done");
  });
});
