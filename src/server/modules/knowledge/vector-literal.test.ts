import { describe, expect, it } from "vitest";
import { vectorLiteral } from "./vector-literal.ts";

describe("a vector as pgvector's text", () => {
  it("gives each float32 back exactly, in about half the characters of a double's shortest form", () => {
    const vectors = [Float32Array.of(0.1, -0.25, 1e-7), Float32Array.of(0.3333333, 0, -1)];
    const literals = vectors.map(vectorLiteral);
    expect(literals.map((l) => Float32Array.from(JSON.parse(l) as number[]))).toEqual(vectors);
    expect(literals[0]!.length).toBeLessThan(3 * 16);
  });
});
