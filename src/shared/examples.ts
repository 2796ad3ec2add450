/**
 * The API reference's examples: what a reader of a request (or an answer) would copy, given to a
 * shared schema with `.meta({ examples })` (JSON Schema `examples`, which OpenAPI 3.1 shows and
 * Redocly checks against the schema). One example world throughout: a clinic's front desk, numbers
 * from the +1 555 01xx fiction range, addresses on example.com. The ids below are that world's
 * resources; tests/api/examples.test.ts sends every example with each of them swapped for the id
 * of a resource it made first.
 */
import type { z } from "zod";

export const EXAMPLE_IDS = {
  assistant: "4b6f1c2e-8a3d-4e5f-9b7a-1c2d3e4f5a6b",
  tool: "7d2e9f10-3b4c-4d5e-8f6a-7b8c9d0e1f2a",
  knowledgeBase: "2c4e6a8b-1d3f-4a5b-8c7d-9e0f1a2b3c4d",
  phoneNumber: "9a8b7c6d-5e4f-4a3b-8c1d-0e9f8a7b6c5d",
  sipTrunk: "5f4e3d2c-1b0a-4c9d-8e7f-6a5b4c3d2e1f",
  provider: "1e2d3c4b-5a69-4788-9a6b-5c4d3e2f1a0b",
  scenario: "3a5c7e9b-2d4f-4a6c-8e0b-1d3f5a7c9e2b",
} as const;

/** Numbers of the fiction range: a caller, the clinic's line, its on-call nurse. */
export const EXAMPLE_PHONES = { caller: "+14155550134", clinic: "+14155550100", nurse: "+14155550177" } as const;

/** An invitation token as the e-mailed link carries it. */
export const EXAMPLE_INVITATION_TOKEN = "inv_6Jk2pQ9xVt4LmN8rS3wYb7Zc";

/**
 * Where the examples wait in a schema's metadata. Not `examples` itself: zod's converter drops
 * `examples` from the request variant of a schema that transforms (a trim, a default), taking them
 * for examples of what it gives; ours are what a client sends. The document moves them to
 * `examples` (http/openapi-schemas.ts).
 */
export const INPUT_EXAMPLES_KEY = "x-input-examples";

/** The schema with its documented examples, each typed as what the schema accepts. */
export function withExamples<S extends z.ZodType>(schema: S, ...examples: [z.input<S>, ...z.input<S>[]]): S {
  return schema.meta({ [INPUT_EXAMPLES_KEY]: examples }) as S;
}
