import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeResponses, type FakeResponses } from "../../../tests/fakes/fake-responses.ts";
import { createResponsesClient, MAX_RETRY_AFTER_MS, parseResetDuration, ResponsesError, retryAfterMs, retryDelayMs, type JsonSchemaFormat } from "./responses-client.ts";

const format = (schema: Record<string, unknown>): JsonSchemaFormat => ({ type: "json_schema", name: "call_analysis", strict: true, schema });
const okSchema = {
  type: "object",
  properties: { summary: { type: "string" }, order_id: { type: ["string", "null"] } },
  required: ["summary", "order_id"],
  additionalProperties: false,
};

let fake: FakeResponses;
beforeAll(async () => {
  fake = await startFakeResponses({ apiKey: "sk-right" });
});
afterAll(() => fake.close());

const client = (o: { apiKey?: string; timeoutMs?: number } = {}) => createResponsesClient({ baseUrl: fake.baseUrl, apiKey: o.apiKey ?? "sk-right", timeoutMs: o.timeoutMs });

async function failure(p: Promise<unknown>): Promise<ResponsesError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ResponsesError);
  return err as ResponsesError;
}

describe("Responses client against the fake service", () => {
  it("sends the structured-output request and reads the JSON answer and its usage", async () => {
    fake.enqueue({ kind: "answer", json: { summary: "Asked for an order", order_id: "42" }, usage: { input_tokens: 900, cached_tokens: 100, output_tokens: 40 } });
    const { value, result } = await client().createJson({ model: "gpt-5-mini", input: [{ role: "user", content: "Transcript" }], text: { format: format(okSchema) }, store: false });
    expect(value).toEqual({ summary: "Asked for an order", order_id: "42" });
    expect(result.usage).toMatchObject({ input_tokens: 900, input_tokens_details: { cached_tokens: 100 }, output_tokens: 40, total_tokens: 940 });
    const sent = fake.requests.at(-1)!;
    expect(sent.authorization).toBe("Bearer sk-right");
    expect(sent.body).toMatchObject({ model: "gpt-5-mini", text: { format: { type: "json_schema", strict: true, name: "call_analysis" } } });
  });

  it("is refused like the service for a strict schema that breaks its rules", async () => {
    const missingRequired = { ...okSchema, required: ["summary"] };
    const err = await failure(client().create({ model: "gpt-5-mini", input: "x", text: { format: format(missingRequired) } }));
    expect(err).toMatchObject({ status: 400, code: "invalid_json_schema", retryable: false });
    expect(err.message).toContain("Missing 'order_id'");

    const open = { type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    expect((await failure(client().create({ model: "gpt-5-mini", input: "x", text: { format: format(open) } }))).message).toContain("'additionalProperties' is required to be supplied and to be false");
    const unsupported = { ...okSchema, properties: { ...okSchema.properties, summary: { type: "string", minLength: 3 } } };
    expect((await failure(client().create({ model: "gpt-5-mini", input: "x", text: { format: format(unsupported) } }))).message).toContain("'minLength' is not permitted");
  });

  it("reports a wrong key and an unknown model as not retryable", async () => {
    expect(await failure(client({ apiKey: "sk-wrong-key" }).create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 401, code: "invalid_api_key", retryable: false });
    expect(await failure(client().create({ model: "gpt-nope", input: "x" }))).toMatchObject({ status: 400, code: "model_not_found", retryable: false });
  });

  it("marks rate limits, server errors and timeouts retryable, with the wait the server asked for", async () => {
    fake.enqueue({ kind: "error", status: 429, headers: { "retry-after": "2", "x-ratelimit-reset-requests": "1s" } });
    expect(await failure(client().create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 429, code: "rate_limit_exceeded", retryable: true, retryAfterMs: 2000 });
    fake.enqueue({ kind: "error", status: 429, code: "insufficient_quota", type: "insufficient_quota", message: "You exceeded your current quota" });
    expect(await failure(client().create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 429, retryable: false });
    fake.enqueue({ kind: "error", status: 500 });
    expect(await failure(client().create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 500, retryable: true });
    fake.enqueue({ kind: "hang" });
    expect(await failure(client({ timeoutMs: 200 }).create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 0, code: "timeout", retryable: true });
  });

  it("reads a 429 asking to wait a day as ten minutes", async () => {
    fake.enqueue({ kind: "error", status: 429, headers: { "retry-after": "86400" } });
    expect(await failure(client().create({ model: "gpt-5-mini", input: "x" }))).toMatchObject({ status: 429, retryable: true, retryAfterMs: 600_000 });
  });

  it("turns a refusal and a cut-short answer into errors of their own", async () => {
    fake.enqueue({ kind: "refusal", refusal: "I can't" });
    expect(await failure(client().createJson({ model: "gpt-5-mini", input: "x", text: { format: format(okSchema) } }))).toMatchObject({ code: "refusal" });
    fake.enqueue({ kind: "incomplete" });
    expect(await failure(client().createJson({ model: "gpt-5-mini", input: "x", text: { format: format(okSchema) } }))).toMatchObject({ code: "incomplete" });
  });
});

describe("retry timing", () => {
  it("reads the rate-limit headers' spellings", () => {
    expect(parseResetDuration("6m0s")).toBe(360_000);
    expect(parseResetDuration("20ms")).toBe(20);
    expect(parseResetDuration("1.5s")).toBe(1500);
    expect(retryAfterMs(new Headers({ "x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "3s" }))).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "150" }))).toBe(150);
  });

  it("never waits more than ten minutes, whatever a header asks (a day, a date next year, 48 h)", () => {
    expect(MAX_RETRY_AFTER_MS).toBe(600_000);
    const now = Date.parse("2026-11-26T12:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "86400" }), now)).toBe(600_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Fri, 26 Nov 2027 12:00:00 GMT" }), now)).toBe(600_000);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "999999999" }), now)).toBe(600_000);
    expect(retryAfterMs(new Headers({ "x-ratelimit-reset-tokens": "48h0m0s" }), now)).toBe(600_000);
    // Within the cap, what was asked.
    expect(retryAfterMs(new Headers({ "retry-after": "599" }), now)).toBe(599_000);
  });

  it("waits what was asked, else backs off exponentially with jitter up to a cap", () => {
    expect(retryDelayMs(1, new ResponsesError("x", "rate_limit_exceeded", 429, true, 7000))).toBe(7000);
    expect(retryDelayMs(1, new Error("x"), { random: () => 1 })).toBe(2000);
    expect(retryDelayMs(3, new Error("x"), { random: () => 0 })).toBe(4000);
    expect(retryDelayMs(30, new Error("x"), { random: () => 1 })).toBe(300_000);
  });
});
