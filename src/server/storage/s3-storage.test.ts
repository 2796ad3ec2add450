import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalS3, type LocalS3 } from "../../../tests/fakes/s3-server.ts";
import { createDefaultStorage } from "./local-storage.ts";
import { mediaRoutes } from "./media.routes.ts";
import { MIN_PART_SIZE } from "./s3-multipart-writer.ts";
import { S3Storage } from "./s3-storage.ts";
import { createUrlSigner } from "./signed-url.ts";
import { StorageError } from "./storage.ts";

let s3: LocalS3;
let storage: S3Storage;
beforeAll(async () => {
  s3 = await startLocalS3();
  storage = new S3Storage({ config: s3.config, fallback: createDefaultStorage("/nonexistent-data-dir"), fallbackPrefixes: ["media"] });
});
afterAll(async () => {
  storage.close();
  await s3.close();
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

describe("S3 storage against a real S3-compatible server", () => {
  it("puts, stats, gets, streams ranges and deletes an object", async () => {
    const body = Buffer.from("RIFF....WAVEfmt hello recording");
    const info = await storage.put("recordings/a.wav", body, { contentType: "audio/wav" });
    expect(info).toMatchObject({ key: "recordings/a.wav", size: body.length, contentType: "audio/wav" });
    expect(info.etag).toMatch(/^".+"$/);
    expect(await storage.stat("recordings/a.wav")).toMatchObject({ size: body.length, contentType: "audio/wav", etag: info.etag });
    expect((await storage.get("recordings/a.wav"))!.body).toEqual(body);
    expect(await readAll(await storage.createReadStream("recordings/a.wav", { start: 4, end: 7 }))).toEqual(body.subarray(4, 8));
    expect(await readAll(await storage.createReadStream("recordings/a.wav", { start: 12 }))).toEqual(body.subarray(12));
    expect(await storage.exists("recordings/a.wav")).toBe(true);
    expect(await storage.delete("recordings/a.wav")).toBe(true);
    expect(await storage.delete("recordings/a.wav")).toBe(false);
    expect(await storage.get("recordings/a.wav")).toBeNull();
    expect(await storage.stat("recordings/a.wav")).toBeNull();
    await expect(storage.createReadStream("recordings/a.wav")).rejects.toMatchObject({ code: "not_found" });
  });

  it("derives the content type from the key when none is given, and refuses bad keys and types", async () => {
    expect((await storage.put("notes/x.txt", Buffer.from("hi"))).contentType).toBe("text/plain; charset=utf-8");
    await expect(storage.put("../escape", Buffer.from("x"))).rejects.toBeInstanceOf(StorageError);
    await expect(storage.put("ok.bin", Buffer.from("x"), { contentType: "text/html\r\nx: y" })).rejects.toMatchObject({ code: "invalid_content_type" });
  });

  it("stores a stream of unknown length", async () => {
    const body = randomBytes(MIN_PART_SIZE + 1234);
    const info = await storage.put("media-upload/stream.bin", Readable.from([body.subarray(0, 1000), body.subarray(1000)]));
    expect(info.size).toBe(body.length);
    expect((await storage.get("media-upload/stream.bin"))!.body.equals(body)).toBe(true);
  });

  it("writes an object a slice at a time through multipart upload, readable once finished, with its start replaced", async () => {
    const slices = Array.from({ length: 12 }, () => randomBytes(1024 * 1024));
    const writer = await storage.openAppend("recordings/long.wav", { contentType: "audio/wav" });
    for (const slice of slices) await writer.append(slice);
    expect(writer.size).toBe(12 * 1024 * 1024);
    // Not visible to readers before it is finished.
    expect(await storage.stat("recordings/long.wav")).toBeNull();
    const header = Buffer.from("RIFF-final-sizes");
    const info = await writer.finish({ head: header });
    const expected = Buffer.concat(slices);
    expected.set(header, 0);
    expect(info).toMatchObject({ size: expected.length, contentType: "audio/wav" });
    const stored = (await storage.get("recordings/long.wav"))!.body;
    expect(stored.equals(expected)).toBe(true);
    // A range across the boundary of the first two parts.
    const from = MIN_PART_SIZE - 10;
    expect((await readAll(await storage.createReadStream("recordings/long.wav", { start: from, end: from + 19 }))).equals(expected.subarray(from, from + 20))).toBe(true);
    await expect(writer.append(Buffer.from("late"))).rejects.toThrow(/already finished/);
  });

  it("writes a short object from slices with a single put", async () => {
    const writer = await storage.openAppend("recordings/short.wav");
    await writer.append(Buffer.from("abc"));
    await writer.append(Buffer.from("def"));
    await writer.finish({ head: Buffer.from("X") });
    expect((await storage.get("recordings/short.wav"))!.body.toString()).toBe("Xbcdef");
  });

  it("reads the shipped media when the bucket lacks them, and never deletes them", async () => {
    const info = await storage.stat("media/clip-aurelia-air.mp4");
    if (!info) throw new Error("the shipped media file is missing from assets/media");
    expect(info.contentType).toBe("video/mp4");
    expect(await storage.delete("media/clip-aurelia-air.mp4")).toBe(false);
    expect(await storage.exists("media/clip-aurelia-air.mp4")).toBe(true);
    expect(await storage.stat("media/missing.mp4")).toBeNull();
  });

  it("serves a stored object through the signed media address with byte ranges (streamed through the server)", async () => {
    await storage.put("recordings/served.wav", Buffer.from("0123456789"), { contentType: "audio/wav" });
    const signer = createUrlSigner({ secret: "s3-test-secret-0123456789abcdef0123" });
    const app = Fastify();
    await app.register(mediaRoutes, { storage, signer });
    try {
      const url = signer.signUrl("recordings/served.wav");
      const whole = await app.inject({ url });
      expect(whole.statusCode).toBe(200);
      expect(whole.headers["content-type"]).toBe("audio/wav");
      expect(whole.body).toBe("0123456789");
      const part = await app.inject({ url, headers: { range: "bytes=2-4" } });
      expect(part.statusCode).toBe(206);
      expect(part.headers["content-range"]).toBe("bytes 2-4/10");
      expect(part.body).toBe("234");
      expect((await app.inject({ url: "/api/media/recordings/served.wav" })).statusCode).toBe(403);
    } finally {
      await app.close();
    }
    expect(await text(await storage.createReadStream("recordings/served.wav"))).toBe("0123456789");
  });
});
