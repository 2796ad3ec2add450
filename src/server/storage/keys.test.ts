import { describe, expect, it } from "vitest";
import { contentTypeForKey, isValidContentType, isValidKey } from "./keys.ts";

describe("isValidKey", () => {
  it.each(["media/clip-bank.mp4", "recordings/2f0c9a1e_call.wav", "a", "A-b_c.d/e.f.g"])("accepts %s", (key) => {
    expect(isValidKey(key)).toBe(true);
  });

  it.each([
    "",
    "..",
    "../etc/passwd",
    "media/../../secret",
    "media/./clip.mp4",
    "/etc/passwd",
    "media//clip.mp4",
    "media/",
    ".hidden",
    "media/.clip.mp4.meta.json",
    "media\\..\\secret",
    "C:/windows",
    "media/clip%2e.mp4",
    "media/clip .mp4",
    "media/cl\u00efp.mp4",
    "media/clip\0.mp4",
    "a\nb",
    "x".repeat(201),
    `${"abcdefgh/".repeat(60)}x`,
  ])("rejects %j", (key) => {
    expect(isValidKey(key)).toBe(false);
  });

  it("rejects non-strings", () => {
    expect(isValidKey(undefined)).toBe(false);
    expect(isValidKey(["media/clip.mp4"])).toBe(false);
  });
});

describe("contentTypeForKey", () => {
  it("maps known extensions case-insensitively and falls back to octet-stream", () => {
    expect(contentTypeForKey("media/clip.mp4")).toBe("video/mp4");
    expect(contentTypeForKey("media/POSTER.WEBP")).toBe("image/webp");
    expect(contentTypeForKey("media/logo.svg")).toBe("image/svg+xml");
    expect(contentTypeForKey("blob.bin")).toBe("application/octet-stream");
    expect(contentTypeForKey("folder.mp4/blob")).toBe("application/octet-stream");
  });
});

describe("isValidContentType", () => {
  it("accepts media types with parameters and refuses header injection", () => {
    expect(isValidContentType("audio/wav")).toBe(true);
    expect(isValidContentType("text/plain; charset=utf-8")).toBe(true);
    expect(isValidContentType("text/html\r\nSet-Cookie: a=b")).toBe(false);
    expect(isValidContentType("nonsense")).toBe(false);
  });
});
