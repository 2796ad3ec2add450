import type { FastifyInstance } from "fastify";
import { AppError } from "../errors.ts";

/**
 * Deepest nesting of objects/arrays a JSON body may have. Every form of the product stays far
 * below it (a tool's parameter schema nests a few levels); thousands of levels would only
 * exhaust the stack of whatever walks the value next (validation, JSON.stringify, jsonb).
 */
export const MAX_JSON_DEPTH = 32;

export const BODY_MESSAGES = {
  tooDeep: `The request body is nested too deeply (at most ${MAX_JSON_DEPTH} levels).`,
  nullCharacter: "Text must not contain the null character (U+0000).",
  loneSurrogate: "Text must be valid Unicode (it contains an unpaired surrogate).",
  invalidJson: "The request body is not valid JSON.",
} as const;

/** Depth of the deepest nesting, counted on the text so a hostile body is never parsed at all. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

// A high surrogate not followed by a low one, or a low one not preceded by a high one.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why a text cannot be stored, or null. PostgreSQL refuses U+0000 in text and jsonb, and jsonb
 * refuses unpaired surrogates, so both would otherwise fail at the database as a 500.
 */
export function unstorableText(text: string): string | null {
  if (text.includes("\u0000")) return BODY_MESSAGES.nullCharacter;
  if (LONE_SURROGATE.test(text)) return BODY_MESSAGES.loneSurrogate;
  return null;
}

/** The first string (key or value) anywhere in `value` that cannot be stored, as its reason. */
export function findUnstorableText(value: unknown): string | null {
  if (typeof value === "string") return unstorableText(value);
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const reason = findUnstorableText(item);
      if (reason) return reason;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const reason = unstorableText(key) ?? findUnstorableText(item);
    if (reason) return reason;
  }
  return null;
}

/**
 * Replaces Fastify's JSON parser with one that also refuses, with a 400 in the error shape, the
 * bodies that would otherwise fail deeper down: nesting beyond MAX_JSON_DEPTH, U+0000 and
 * unpaired surrogates anywhere. Applies to every route, the auth routes included.
 */
export function registerJsonBodyGuard(app: FastifyInstance) {
  // The default parser keeps its prototype-poisoning protection; we only add checks around it.
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, MAX_JSON_DEPTH)) return done(new AppError(400, "invalid_body", BODY_MESSAGES.tooDeep), undefined);
    parse(req, text, (err, value) => {
      if (err) {
        const status = (err as { statusCode?: number }).statusCode ?? 400;
        // An empty body keeps Fastify's own message; broken JSON gets ours.
        if (status === 400 && (err as { code?: string }).code !== "FST_ERR_CTP_EMPTY_JSON_BODY") {
          return done(new AppError(400, "invalid_json", BODY_MESSAGES.invalidJson), undefined);
        }
        return done(err, undefined);
      }
      const reason = findUnstorableText(value);
      if (reason) return done(new AppError(400, "invalid_text", reason), undefined);
      done(null, value);
    });
  });
}
