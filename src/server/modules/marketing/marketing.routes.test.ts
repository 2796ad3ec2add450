import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CustomerCard } from "../../../shared/marketing.ts";
import { buildTestApp, type TestApp } from "../../../../tests/harness.ts";
import { SHIPPED_MEDIA_DIR } from "../../storage/local-storage.ts";

let app: TestApp;

beforeAll(async () => {
  ({ app } = await buildTestApp());
});
afterAll(() => app.close());

async function customers(): Promise<CustomerCard[]> {
  const res = await app.inject({ url: "/api/marketing/customers" });
  expect(res.statusCode).toBe(200);
  expect(res.headers["cache-control"]).toBe("no-store");
  return res.json();
}

const shipped = (file: string) => readFile(`${SHIPPED_MEDIA_DIR}/${file}`);

describe("GET /api/marketing/customers", () => {
  it("lists the three customer stories, publicly, with signed media addresses", async () => {
    const cards = await customers();
    expect(cards.map((c) => [c.id, c.title])).toEqual([
      ["kestrel-bank", "Kestrel Bank"],
      ["aurelia-air", "Aurelia Air"],
      ["brightwell-health", "Brightwell Health"],
    ]);
    for (const card of cards) {
      for (const url of [card.backgroundImage, card.logoImage, card.videoUrl, card.captionsUrl]) {
        expect(url).toMatch(/^\/api\/media\/media\/[\w.-]+\?exp=\d+&sig=[\w-]{43}$/);
      }
    }
  });

  it("hands out addresses the media route serves, with ranges for the video", async () => {
    const [card] = await customers();
    const video = await app.inject({ url: card!.videoUrl });
    expect(video.statusCode).toBe(200);
    expect(video.headers["content-type"]).toBe("video/mp4");
    expect(video.rawPayload.equals(await shipped("clip-kestrel-bank.mp4"))).toBe(true);

    const part = await app.inject({ url: card!.videoUrl, headers: { range: "bytes=100-199" } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals((await shipped("clip-kestrel-bank.mp4")).subarray(100, 200))).toBe(true);

    const poster = await app.inject({ url: card!.backgroundImage });
    expect(poster.statusCode).toBe(200);
    expect(poster.headers["content-type"]).toBe("image/webp");
    const logo = await app.inject({ url: card!.logoImage });
    expect(logo.headers["content-type"]).toBe("image/svg+xml");
    const captions = await app.inject({ url: card!.captionsUrl });
    expect(captions.body).toBe((await shipped("captions-kestrel-bank.vtt")).toString("utf8"));
  });

  it("signs each address for its own object: unsigned, tampered or re-pointed addresses are refused", async () => {
    const [card] = await customers();
    const videoPath = card!.videoUrl.slice(0, card!.videoUrl.indexOf("?"));
    expect((await app.inject({ url: videoPath })).statusCode).toBe(403);

    const otherKey = card!.videoUrl.replace("clip-kestrel-bank.mp4", "clip-aurelia-air.mp4");
    expect((await app.inject({ url: otherKey })).statusCode).toBe(403);

    const laterExpiry = card!.videoUrl.replace(/exp=(\d+)/, (_m, exp: string) => `exp=${Number(exp) + 86_400_000}`);
    expect((await app.inject({ url: laterExpiry })).statusCode).toBe(403);
  });

  it("serves an operator's own manifest stored in place of the shipped one", async () => {
    const { storage } = app.ctx;
    await storage.put("media/customers.json", Buffer.from(JSON.stringify([{ id: "acme", title: "Acme", backgroundKey: "stories/acme.webp", logoKey: "stories/acme.svg", videoKey: "stories/acme.mp4", captionsKey: "stories/acme.vtt" }])));
    await storage.put("stories/acme.mp4", Buffer.from("not really a video"));
    try {
      const cards = await customers();
      expect(cards).toHaveLength(1);
      expect(cards[0]).toMatchObject({ id: "acme", title: "Acme" });
      const video = await app.inject({ url: cards[0]!.videoUrl });
      expect(video.statusCode).toBe(200);
      expect(video.body).toBe("not really a video");
    } finally {
      await storage.delete("media/customers.json");
    }
  });
});

describe("customer media addresses over time", () => {
  let timed: TestApp;
  beforeAll(async () => {
    // The clock is faked before the app is built, so the signer and the media route both read it.
    vi.useFakeTimers({ toFake: ["Date"] });
    ({ app: timed } = await buildTestApp());
  });
  afterAll(async () => {
    await timed.close();
    vi.useRealTimers();
  });

  it("work for an hour and are refused after it", async () => {
    const issuedAt = Date.now();
    const [card] = (await timed.inject({ url: "/api/marketing/customers" })).json() as CustomerCard[];

    vi.setSystemTime(issuedAt + 59 * 60_000);
    expect((await timed.inject({ url: card!.videoUrl, headers: { range: "bytes=0-9" } })).statusCode).toBe(206);

    vi.setSystemTime(issuedAt + 60 * 60_000 + 1_000);
    const expired = await timed.inject({ url: card!.videoUrl });
    expect(expired.statusCode).toBe(403);
    expect(expired.json()).toEqual({ error: { code: "forbidden", message: "This media address has expired" } });

    // A fresh list fixes it: that is what the landing page does.
    const [fresh] = (await timed.inject({ url: "/api/marketing/customers" })).json() as CustomerCard[];
    expect((await timed.inject({ url: fresh!.videoUrl, headers: { range: "bytes=0-9" } })).statusCode).toBe(206);
  });
});
