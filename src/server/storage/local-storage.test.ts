import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { text } from "node:stream/consumers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDefaultStorage, createLocalStorage, SHIPPED_MEDIA_DIR } from "./local-storage.ts";
import { StorageError, type Storage } from "./storage.ts";

let dir: string;
let root: string;
let shipped: string;
let storage: Storage;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "switchboard-storage-"));
  root = path.join(dir, "objects");
  shipped = path.join(dir, "assets");
  await mkdir(shipped);
  await writeFile(path.join(shipped, "poster.webp"), "shipped poster");
  await writeFile(path.join(dir, "secret.txt"), "outside the roots");
  storage = createLocalStorage({ root, readOnlyMounts: [{ prefix: "media", dir: shipped }] });
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("local storage: objects written in pieces", () => {
  it("appends, patches the head at the end, and shows nothing under the key before", async () => {
    const writer = await storage.openAppend("recordings/call-2.wav", { contentType: "audio/wav" });
    await writer.append(Buffer.from("HEAD"));
    await writer.append(Buffer.from("-one"));
    await writer.append(Buffer.from("-two"));
    expect(writer.size).toBe(12);
    expect(await storage.exists("recordings/call-2.wav")).toBe(false);
    const info = await writer.finish({ head: Buffer.from("RIFF") });
    expect(info).toMatchObject({ key: "recordings/call-2.wav", size: 12, contentType: "audio/wav" });
    expect((await storage.get("recordings/call-2.wav"))?.body.toString()).toBe("RIFF-one-two");
    // No temporary file is left beside it.
    expect((await readdir(path.join(root, "recordings"))).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  it("leaves nothing behind when aborted, and refuses invalid keys", async () => {
    const writer = await storage.openAppend("recordings/call-3.wav");
    await writer.append(Buffer.from("partial"));
    await writer.abort();
    await writer.abort();
    expect(await storage.exists("recordings/call-3.wav")).toBe(false);
    expect(await readdir(path.join(root, "recordings"))).toEqual([]);
    await expect(storage.openAppend("../escape.wav")).rejects.toBeInstanceOf(StorageError);
  });
});

describe("local storage", () => {
  it("puts and gets buffers, with the type derived from the extension", async () => {
    const info = await storage.put("recordings/call-1.wav", Buffer.from("RIFF...."));
    expect(info).toMatchObject({ key: "recordings/call-1.wav", size: 8, contentType: "audio/wav" });
    expect(info.etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    const got = await storage.get("recordings/call-1.wav");
    expect(got?.body.toString()).toBe("RIFF....");
    expect(await readFile(path.join(root, "recordings", "call-1.wav"), "utf8")).toBe("RIFF....");
  });

  it("puts streams and keeps an explicit content type beside the object", async () => {
    await storage.put("blobs/upload", Readable.from([Buffer.from("hello "), Buffer.from("world")]), { contentType: "text/plain; charset=utf-8" });
    expect(await storage.stat("blobs/upload")).toMatchObject({ size: 11, contentType: "text/plain; charset=utf-8" });
    // Overwriting without a type forgets the old one.
    await storage.put("blobs/upload", Buffer.from("x"));
    expect((await storage.stat("blobs/upload"))?.contentType).toBe("application/octet-stream");
    // Nothing but the object (and no temporary files) is left in the folder listing as a key.
    expect((await readdir(path.join(root, "blobs"))).filter((name) => !name.startsWith("."))).toEqual(["upload"]);
  });

  it("streams byte ranges", async () => {
    await storage.put("a.txt", Buffer.from("0123456789"));
    expect(await text(await storage.createReadStream("a.txt"))).toBe("0123456789");
    expect(await text(await storage.createReadStream("a.txt", { start: 2, end: 4 }))).toBe("234");
    expect(await text(await storage.createReadStream("a.txt", { start: 7 }))).toBe("789");
  });

  it("reports missing objects", async () => {
    expect(await storage.stat("nope.mp4")).toBeNull();
    expect(await storage.get("nope.mp4")).toBeNull();
    expect(await storage.exists("nope.mp4")).toBe(false);
    expect(await storage.delete("nope.mp4")).toBe(false);
    await expect(storage.createReadStream("nope.mp4")).rejects.toMatchObject({ code: "not_found" });
    // A key that runs through an existing object as if it were a folder.
    await storage.put("file", Buffer.from("x"));
    expect(await storage.stat("file/child")).toBeNull();
  });

  it("deletes objects and their sidecar", async () => {
    await storage.put("d/x.bin", Buffer.from("x"), { contentType: "image/png" });
    expect(await storage.delete("d/x.bin")).toBe(true);
    expect(await storage.exists("d/x.bin")).toBe(false);
    expect(await readdir(path.join(root, "d"))).toEqual([]);
  });

  it("reads shipped assets through the read-only mount, and lets the writable root override them", async () => {
    expect(await storage.stat("media/poster.webp")).toMatchObject({ size: 14, contentType: "image/webp" });
    expect(await storage.delete("media/poster.webp")).toBe(false);
    expect((await storage.get("media/poster.webp"))?.body.toString()).toBe("shipped poster");
    await storage.put("media/poster.webp", Buffer.from("override"));
    expect((await storage.get("media/poster.webp"))?.body.toString()).toBe("override");
    await storage.delete("media/poster.webp");
    expect((await storage.get("media/poster.webp"))?.body.toString()).toBe("shipped poster");
    expect(await storage.exists("other/poster.webp")).toBe(false);
  });

  it.each(["../secret.txt", "media/../../secret.txt", "/etc/passwd", "media/..", "..\\secret.txt", ".objects", "a//b", ""])(
    "refuses the key %j in every operation",
    async (key) => {
      for (const attempt of [
        () => storage.put(key, Buffer.from("x")),
        () => storage.get(key),
        () => storage.stat(key),
        () => storage.createReadStream(key),
        () => storage.delete(key),
        () => storage.exists(key),
      ]) {
        await expect(attempt()).rejects.toBeInstanceOf(StorageError);
        await expect(attempt()).rejects.toMatchObject({ code: "invalid_key" });
      }
      expect(await readFile(path.join(dir, "secret.txt"), "utf8")).toBe("outside the roots");
    },
  );

  it("refuses content types that could inject headers", async () => {
    await expect(storage.put("a.txt", Buffer.from("x"), { contentType: "text/html\r\nX-Evil: 1" })).rejects.toMatchObject({
      code: "invalid_content_type",
    });
  });

  it("resolves every key of the committed customers.json through the default storage", async () => {
    expect(SHIPPED_MEDIA_DIR.endsWith(path.join("assets", "media"))).toBe(true);
    const shippedStorage = createDefaultStorage(dir);
    const cards = JSON.parse(await readFile(path.join(SHIPPED_MEDIA_DIR, "customers.json"), "utf8")) as Record<string, string>[];
    expect(cards).toHaveLength(3);
    const expected = { videoKey: "video/mp4", backgroundKey: "image/webp", logoKey: "image/svg+xml", captionsKey: "text/vtt; charset=utf-8" };
    for (const card of cards) {
      for (const [field, contentType] of Object.entries(expected)) {
        const info = await shippedStorage.stat(card[field] ?? "");
        expect(info?.contentType, `${card.id} ${field}`).toBe(contentType);
        expect(info?.size).toBeGreaterThan(0);
      }
    }
  });
});
