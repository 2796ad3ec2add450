import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, gunzipSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "../../../tests/harness.ts";

const INDEX = "<!doctype html><html><body><div id=root></div></body></html>";
const SCRIPT = `console.log(${JSON.stringify("x".repeat(4000))});`;

let app: TestApp;

beforeAll(async () => {
  const webRoot = mkdtempSync(join(tmpdir(), "switchboard-spa-"));
  mkdirSync(join(webRoot, "assets"));
  writeFileSync(join(webRoot, "index.html"), INDEX);
  writeFileSync(join(webRoot, "assets", "app-abc123.js"), SCRIPT);
  // What the build's precompress step writes beside each asset.
  writeFileSync(join(webRoot, "assets", "app-abc123.js.br"), brotliCompressSync(SCRIPT));
  writeFileSync(join(webRoot, "assets", "app-abc123.js.gz"), gzipSync(SCRIPT));
  ({ app } = await buildTestApp({ deps: { webRoot } }));
});
afterAll(() => app.close());

describe("the built client", () => {
  it("serves the home page itself (a fresh visit to /), not a directory refusal", async () => {
    const res = await app.inject({ url: "/" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.body).toBe(INDEX);
  });

  it("serves other page paths with the same document, for the client router", async () => {
    const res = await app.inject({ url: "/request-a-demo" });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe(INDEX);
  });

  it("answers an unknown page path with 404 and the same document (the app shows its not-found page)", async () => {
    for (const url of ["/no/such/page", "/calls/123/x", "/assistantsx"]) {
      const res = await app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.body).toBe(INDEX);
    }
    expect((await app.inject({ url: "/calls?type=real" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/industries/banking" })).statusCode).toBe(200);
  });

  it("sends the precompressed asset the browser accepts, and the plain file otherwise", async () => {
    const br = await app.inject({ url: "/assets/app-abc123.js", headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(br.statusCode).toBe(200);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers["content-type"]).toMatch(/javascript/);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.rawPayload.length).toBeLessThan(SCRIPT.length / 4);

    const gzip = await app.inject({ url: "/assets/app-abc123.js", headers: { "accept-encoding": "gzip" } });
    expect(gzip.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gzip.rawPayload).toString()).toBe(SCRIPT);

    const plain = await app.inject({ url: "/assets/app-abc123.js", headers: { "accept-encoding": "identity" } });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.body).toBe(SCRIPT);
    expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});
