import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalStorage } from "./local-storage.ts";
import { mediaRoutes } from "./media.routes.ts";
import { createUrlSigner, type UrlSigner } from "./signed-url.ts";
import type { Storage } from "./storage.ts";

const NOW = 1_800_000_000_000;
const SECRET = "route-test-secret-0123456789abcdef";
const VIDEO = randomBytes(256 * 1024 + 7);

let dir: string;
let storage: Storage;
let app: FastifyInstance;
let clock = NOW;
const signer = createUrlSigner({ secret: SECRET });

async function buildApp(withSigner: UrlSigner): Promise<FastifyInstance> {
  const instance = Fastify();
  await instance.register(mediaRoutes, { storage, signer: withSigner, now: () => clock });
  await instance.ready();
  return instance;
}

const sign = (key: string, expiresInMs?: number) => signer.signUrl(key, { now: NOW, expiresInMs });
const query = (url: string) => url.slice(url.indexOf("?"));

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "switchboard-media-"));
  const shipped = path.join(dir, "assets");
  await mkdir(shipped);
  await writeFile(path.join(shipped, "clip-bank.mp4"), VIDEO);
  await writeFile(path.join(dir, "secret.txt"), "TOP SECRET");
  storage = createLocalStorage({ root: path.join(dir, "objects"), readOnlyMounts: [{ prefix: "media", dir: shipped }] });
  await storage.put("recordings/call-1.wav", Buffer.from("RIFF-recording"));
  await storage.put("empty.bin", Buffer.alloc(0));
  app = await buildApp(signer);
});

afterAll(async () => {
  await app.close();
  await rm(dir, { recursive: true, force: true });
});

function expectForbidden(res: { statusCode: number; json: () => unknown; headers: Record<string, unknown> }, message?: RegExp) {
  expect(res.statusCode).toBe(403);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  expect(res.headers["cache-control"]).toBe("no-store");
  expect(res.json()).toEqual({ error: { code: "forbidden", message: expect.stringMatching(message ?? /./) } });
}

describe("GET /api/media/*", () => {
  it("serves a shipped object through a valid signed URL", async () => {
    clock = NOW;
    const res = await app.inject({ url: sign("media/clip-bank.mp4") });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(VIDEO)).toBe(true);
    expect(res.headers).toMatchObject({
      "content-type": "video/mp4",
      "content-length": String(VIDEO.length),
      "accept-ranges": "bytes",
      "cache-control": "private, max-age=3600",
      "x-content-type-options": "nosniff",
    });
    expect(res.headers.etag).toMatch(/^"/);
  });

  it("serves objects from the writable root", async () => {
    clock = NOW;
    const res = await app.inject({ url: sign("recordings/call-1.wav") });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("audio/wav");
    expect(res.body).toBe("RIFF-recording");
  });

  it("never lets the browser cache longer than the URL lives", async () => {
    clock = NOW + 3_000_500;
    const res = await app.inject({ url: sign("media/clip-bank.mp4") });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("private, max-age=599");
  });

  it("refuses an expired URL", async () => {
    clock = NOW + 60_000;
    expectForbidden(await app.inject({ url: sign("media/clip-bank.mp4", 60_000) }), /expired/);
  });

  it("refuses a tampered signature", async () => {
    clock = NOW;
    const url = sign("media/clip-bank.mp4");
    const sig = new URL(url, "http://x").searchParams.get("sig") ?? "";
    const tampered = url.replace(sig, sig.slice(0, 5) + (sig[5] === "a" ? "b" : "a") + sig.slice(6));
    expect(tampered).not.toBe(url);
    expectForbidden(await app.inject({ url: tampered }), /invalid/);
  });

  it("refuses a tampered expiry", async () => {
    clock = NOW;
    const url = sign("media/clip-bank.mp4");
    expectForbidden(await app.inject({ url: url.replace(`exp=${NOW + 3_600_000}`, `exp=${NOW + 86_400_000}`) }));
  });

  it("refuses a signature moved onto another key", async () => {
    clock = NOW;
    const res = await app.inject({ url: `/api/media/recordings/call-1.wav${query(sign("media/clip-bank.mp4"))}` });
    expectForbidden(res, /invalid/);
  });

  it("refuses a URL signed with another secret", async () => {
    clock = NOW;
    const other = createUrlSigner({ secret: "some-other-secret-0123456789" });
    expectForbidden(await app.inject({ url: other.signUrl("media/clip-bank.mp4", { now: NOW }) }));
  });

  it("refuses unsigned and half-signed URLs, without revealing whether the object exists", async () => {
    clock = NOW;
    expectForbidden(await app.inject({ url: "/api/media/media/clip-bank.mp4" }), /not signed/);
    expectForbidden(await app.inject({ url: "/api/media/no/such.mp4" }), /not signed/);
    expectForbidden(await app.inject({ url: `/api/media/media/clip-bank.mp4?exp=${NOW + 1000}` }));
    const url = sign("media/clip-bank.mp4");
    expectForbidden(await app.inject({ url: `${url}&sig=second` }));
  });

  it("answers 404 for a validly signed URL of a missing object", async () => {
    clock = NOW;
    const res = await app.inject({ url: sign("media/missing.mp4") });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: "not_found", message: "Media not found" } });
  });

  it("serves an empty object", async () => {
    clock = NOW;
    const res = await app.inject({ url: sign("empty.bin") });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-length"]).toBe("0");
    expect(res.rawPayload.length).toBe(0);
  });
});

describe("range requests", () => {
  const size = VIDEO.length;
  const get = (range: string, extra: Record<string, string> = {}) => {
    clock = NOW;
    return app.inject({ url: sign("media/clip-bank.mp4"), headers: { range, ...extra } });
  };

  it("serves the first bytes", async () => {
    const res = await get("bytes=0-99");
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-range"]).toBe(`bytes 0-99/${size}`);
    expect(res.headers["content-length"]).toBe("100");
    expect(res.headers["accept-ranges"]).toBe("bytes");
    expect(res.headers["content-type"]).toBe("video/mp4");
    expect(res.rawPayload.equals(VIDEO.subarray(0, 100))).toBe(true);
  });

  it("serves a suffix range", async () => {
    const res = await get("bytes=-100");
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-range"]).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(res.rawPayload.equals(VIDEO.subarray(size - 100))).toBe(true);
  });

  it("serves an open range from the middle", async () => {
    const res = await get("bytes=100000-");
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-range"]).toBe(`bytes 100000-${size - 1}/${size}`);
    expect(res.headers["content-length"]).toBe(String(size - 100000));
    expect(res.rawPayload.equals(VIDEO.subarray(100000))).toBe(true);
  });

  it("answers 416 for an unsatisfiable range", async () => {
    const res = await get(`bytes=${size}-`);
    expect(res.statusCode).toBe(416);
    expect(res.headers["content-range"]).toBe(`bytes */${size}`);
    expect(res.json()).toMatchObject({ error: { code: "range_not_satisfiable" } });
  });

  it("ignores a multi-range or malformed header and sends everything", async () => {
    for (const range of ["bytes=0-1,4-5", "bytes=9-3", "lines=1-2"]) {
      const res = await get(range);
      expect(res.statusCode, range).toBe(200);
      expect(res.rawPayload.length).toBe(size);
    }
  });

  it("honours If-Range only while the validator matches", async () => {
    const { headers } = await get("bytes=0-0");
    expect((await get("bytes=0-9", { "if-range": String(headers.etag) })).statusCode).toBe(206);
    expect((await get("bytes=0-9", { "if-range": String(headers["last-modified"]) })).statusCode).toBe(206);
    const stale = await get("bytes=0-9", { "if-range": '"stale"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(size);
  });
});

describe("HEAD /api/media/*", () => {
  it("returns the headers without a body", async () => {
    clock = NOW;
    const res = await app.inject({ method: "HEAD", url: sign("media/clip-bank.mp4") });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-length"]).toBe(String(VIDEO.length));
    expect(res.headers["content-type"]).toBe("video/mp4");
    expect(res.headers["accept-ranges"]).toBe("bytes");
    expect(res.rawPayload.length).toBe(0);
  });

  it("describes a range", async () => {
    clock = NOW;
    const res = await app.inject({ method: "HEAD", url: sign("media/clip-bank.mp4"), headers: { range: "bytes=-100" } });
    expect(res.statusCode).toBe(206);
    expect(res.headers["content-length"]).toBe("100");
    expect(res.rawPayload.length).toBe(0);
  });

  it("is refused when unsigned", async () => {
    const res = await app.inject({ method: "HEAD", url: "/api/media/media/clip-bank.mp4" });
    expect(res.statusCode).toBe(403);
  });
});

describe("path traversal", () => {
  const attempts = [
    "/api/media/..%2fsecret.txt",
    "/api/media/..%2F..%2Fsecret.txt",
    "/api/media/media/..%2f..%2fsecret.txt",
    "/api/media/%2e%2e/%2e%2e/secret.txt",
    "/api/media/media/%2e%2e%5c%2e%2e%5csecret.txt",
    "/api/media/%2fetc%2fpasswd",
    "/api/media//etc/passwd",
    "/api/media/media/../../secret.txt",
  ];

  it.each(attempts)("refuses %s carrying a valid signature of another key", async (attempt) => {
    clock = NOW;
    const res = await app.inject({ url: attempt + query(sign("media/clip-bank.mp4")) });
    expect(res.statusCode).not.toBe(200);
    expect(res.body).not.toContain("TOP SECRET");
  });

  it("cannot be signed in the first place", () => {
    expect(() => signer.signUrl("../secret.txt")).toThrow();
    expect(() => signer.signUrl("media/../../secret.txt")).toThrow();
  });

  it.each(attempts)("stays inside the roots even if a signature check were bypassed: %s", async (attempt) => {
    const trustsAll: UrlSigner = { basePath: "/api/media", signUrl: signer.signUrl, verifySignedUrl: () => ({ ok: true, expiresAt: NOW + 1000 }) };
    const careless = await buildApp(trustsAll);
    try {
      const res = await careless.inject({ url: attempt });
      expect([400, 404]).toContain(res.statusCode);
      expect(res.body).not.toContain("TOP SECRET");
    } finally {
      await careless.close();
    }
  });
});

describe("an object removed between stat and read", () => {
  it("answers 404, not 500", async () => {
    const vanishing: Storage = {
      put: (key, body, options) => storage.put(key, body, options),
      openAppend: (key, options) => storage.openAppend(key, options),
      get: (key) => storage.get(key),
      stat: (key) => storage.stat(key),
      delete: (key) => storage.delete(key),
      exists: (key) => storage.exists(key),
      createReadStream: async (key) => {
        await storage.delete(key);
        return storage.createReadStream(key);
      },
    };
    await storage.put("tmp/vanishing.bin", Buffer.from("soon gone"));
    const instance = Fastify();
    await instance.register(mediaRoutes, { storage: vanishing, signer, now: () => NOW });
    try {
      const res = await instance.inject({ url: sign("tmp/vanishing.bin") });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: "not_found" } });
    } finally {
      await instance.close();
    }
  });
});
