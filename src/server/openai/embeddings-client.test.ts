import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fakeEmbedding, FakeEmbeddings } from "../../../tests/fakes/fake-embeddings.ts";
import { createEmbeddingsClient } from "./embeddings-client.ts";

/**
 * The embeddings client against the stand-in `/v1/embeddings`, and against a compatible server
 * of its own here that answers as it pleases: vectors are asked for as base64 float32 (a quarter
 * of the JSON), and numbers are taken too from a server that ignores the format.
 */
let fake: FakeEmbeddings;
let other: Server;
let answer: (input: string[]) => unknown = () => ({});

beforeAll(async () => {
  fake = await FakeEmbeddings.start({ apiKey: "sk-test" });
  other = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer((JSON.parse(body) as { input: string[] }).input))));
  });
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await fake.close();
  await new Promise((resolve) => other.close(resolve));
});

const otherUrl = () => `http://127.0.0.1:${(other.address() as AddressInfo).port}/v1`;

describe("embeddings client", () => {
  it("asks for base64 and answers each text's vector, in order", async () => {
    const client = createEmbeddingsClient({ baseUrl: fake.baseUrl, apiKey: "sk-test", model: "text-embedding-3-small", dimensions: 64 });
    const texts = ["How many days to return an item?", "Opening hours on Sunday", "Delivery to the islands"];
    const { vectors, tokens } = await client.embed(texts);
    expect(fake.requests.at(-1)?.body).toMatchObject({ encoding_format: "base64", dimensions: 64 });
    expect(tokens).toBeGreaterThan(0);
    expect(vectors).toHaveLength(3);
    // float32 on the wire: each number as close as single precision allows.
    vectors.forEach((v, i) => fakeEmbedding(texts[i]!, 64).forEach((x, d) => expect(v[d]).toBeCloseTo(x, 6)));
  });

  it("takes numbers from a compatible server that ignores the format", async () => {
    answer = (input) => ({ data: input.map((_, index) => ({ index, embedding: [0.6, 0.8] })), usage: { total_tokens: 2 } });
    const client = createEmbeddingsClient({ baseUrl: otherUrl(), apiKey: "k", model: "m", dimensions: 2 });
    expect((await client.embed(["a"])).vectors).toEqual([Float32Array.of(0.6, 0.8)]);
  });

  it("refuses bytes that are not whole floats, or a vector of the wrong length", async () => {
    const client = createEmbeddingsClient({ baseUrl: otherUrl(), apiKey: "k", model: "m", dimensions: 2 });
    answer = (input) => ({ data: input.map((_, index) => ({ index, embedding: Buffer.from([1, 2, 3]).toString("base64") })) });
    await expect(client.embed(["a"])).rejects.toMatchObject({ code: "invalid_output" });
    answer = (input) => ({ data: input.map((_, index) => ({ index, embedding: Buffer.alloc(12).toString("base64") })) });
    await expect(client.embed(["a"])).rejects.toMatchObject({ code: "invalid_output" });
  });
});
