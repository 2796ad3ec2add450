/**
 * Text the call engine stores comes from callers, the model and tools' HTTP answers, and may
 * hold what PostgreSQL's jsonb refuses: U+0000 and unpaired UTF-16 surrogates (invalid in
 * UTF-8). One such character would make the final write of the call fail, losing its
 * transcript, recording and cost. U+0000 is removed; a lone surrogate becomes U+FFFD.
 */

const NUL = new RegExp(String.fromCharCode(0), "g");
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Nearly all text has neither: one scan for either answers it, cheaper than the two replaces. */
const SUSPECT = new RegExp(`[${String.fromCharCode(0)}\\uD800-\\uDFFF]`);

export function cleanText(text: string): string {
  if (!SUSPECT.test(text)) return text;
  return text.replace(NUL, "").replace(LONE_SURROGATE, "\uFFFD");
}

/** A JSON-like value with every string (object keys included) cleaned; other values unchanged. */
export function cleanForStorage<T>(value: T): T {
  return clean(value) as T;
}

function clean(value: unknown): unknown {
  if (typeof value === "string") return cleanText(value);
  if (Array.isArray(value)) return value.map(clean);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) out[cleanText(key)] = clean(inner);
    return out;
  }
  return value;
}
