// Object keys are addressable from URLs and map straight onto file paths, so the
// allowed shape is deliberately narrow: "/"-separated segments of URL-safe
// characters. A segment may not start with "." — that rules out "." and ".." and
// keeps dot-files free for the store's own sidecar and temporary files.
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;
const MAX_KEY_LENGTH = 512;

export function isValidKey(key: unknown): key is string {
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_KEY_LENGTH) return false;
  return key.split("/").every((segment) => SEGMENT.test(segment));
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp4: "video/mp4",
  m4v: "video/mp4",
  webm: "video/webm",
  mp3: "audio/mpeg",
  m4a: "audio/mp4",
  wav: "audio/wav",
  ogg: "audio/ogg",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  webp: "image/webp",
  gif: "image/gif",
  svg: "image/svg+xml",
  json: "application/json",
  vtt: "text/vtt; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  pdf: "application/pdf",
};

export const DEFAULT_CONTENT_TYPE = "application/octet-stream";

export function contentTypeForKey(key: string): string {
  const dot = key.lastIndexOf(".");
  if (dot < 0 || dot < key.lastIndexOf("/")) return DEFAULT_CONTENT_TYPE;
  return CONTENT_TYPES[key.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}

// Stored content types end up in a response header verbatim.
const CONTENT_TYPE = /^[\w.+-]+\/[\w.+-]+(?:\s*;\s*[\w.+-]+=(?:[\w.+-]+|"[\w .+-]*"))*$/;

export function isValidContentType(value: string): boolean {
  return value.length <= 200 && CONTENT_TYPE.test(value);
}
