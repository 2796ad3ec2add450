import { readdirSync, readFileSync } from "node:fs";
import { getPriority } from "node:os";
import { describe, expect, it } from "vitest";
import { makePdf } from "../../../../tests/knowledge-files.ts";
import { extractInWorker, vectorLiteralsInWorker } from "./extract-in-worker.ts";

/** Each thread of this process and its nice value (Linux keeps one per thread: /proc/self/task/<tid>/stat, field 19). */
function threadNices(): number[] {
  return readdirSync("/proc/self/task").flatMap((tid) => {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      return [Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16])];
    } catch {
      return []; // a thread that ended meanwhile
    }
  });
}

describe.runIf(process.platform === "linux")("the ingestion thread", () => {
  it("reads a document at the lowest priority, leaving the server's own threads where they were", async () => {
    const before = getPriority();
    const { chunks, pages } = await extractInWorker(await makePdf([["Opening hours: 9 to 5 on weekdays."]]), "pdf");
    expect(pages).toBe(1);
    expect(chunks.map((c) => c.content).join(" ")).toContain("Opening hours");
    expect(threadNices()).toContain(19);
    expect(getPriority()).toBe(before);
  });

  it("reads an embeddings answer into pgvector's text, each float32 given back exactly", async () => {
    const vectors = [Float32Array.of(0.1, -0.25, 1e-7), Float32Array.of(0.3333333, 0, -1)];
    // As the API answers base64: each vector's little-endian float32 bytes; here out of order.
    const body = (data: unknown) => new TextEncoder().encode(JSON.stringify({ data, usage: { total_tokens: 7 } })).buffer as ArrayBuffer;
    const answer = body(vectors.map((v, index) => ({ index, embedding: Buffer.from(v.buffer).toString("base64") })).reverse());
    const { literals, tokens } = await vectorLiteralsInWorker(answer, 2, 3);
    expect(tokens).toBe(7);
    expect(literals.map((l) => Float32Array.from(JSON.parse(l) as number[]))).toEqual(vectors);
    expect(literals[0]!.length).toBeLessThan(3 * 16);

    await expect(vectorLiteralsInWorker(body([{ index: 0, embedding: [1, 2] }]), 1, 3)).rejects.toMatchObject({ code: "invalid_output", retryable: false });
    await expect(vectorLiteralsInWorker(body([]), 1, 3)).rejects.toMatchObject({ code: "invalid_output", retryable: true });
    await expect(vectorLiteralsInWorker(new TextEncoder().encode('{"data": [').buffer as ArrayBuffer, 1, 3)).rejects.toMatchObject({ code: "invalid_output", retryable: true });
    // The thread is still there for the next document.
    expect((await extractInWorker(await makePdf([["Returns within 30 days."]]), "pdf")).chunks[0]?.content).toContain("Returns");
  });
});
