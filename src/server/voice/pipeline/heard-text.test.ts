import { describe, expect, it } from "vitest";
import { heardText } from "./pipeline-session.ts";

const sentences = [
  { text: "Your order left on Monday.", ms: 1000 },
  { text: "It is with the courier now and arrives Thursday.", ms: 2000 },
];

describe("what the caller heard of a reply cut by a barge-in", () => {
  it("keeps the sentences heard in full and the heard share of the one cut off", () => {
    expect(heardText(sentences, 3000)).toBe("Your order left on Monday. It is with the courier now and arrives Thursday.");
    expect(heardText(sentences, 1000)).toBe("Your order left on Monday.");
    expect(heardText(sentences, 2000)).toBe("Your order left on Monday. It is with the…");
    expect(heardText(sentences, 100)).toBe("");
  });
});
