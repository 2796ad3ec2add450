/**
 * Seeded generator of bad requests for one JSON route: every case must be answered with a 4xx in
 * the error shape and must store nothing. Deterministic for a given seed, so a failure replays.
 */

export interface BadInput {
  label: string;
  /** The raw body sent (already encoded), or undefined for none. */
  payload?: string;
  contentType?: string;
  /** Replaces the route's path (non-id path parameters). */
  path?: string;
}


const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const MB_STRING = "a".repeat(1_000_000);
/** Past the 1 MiB body limit: for a field whose own limit is the body's (pasted documents). */
const OVER_BODY_STRING = "a".repeat(1_100_000);
const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
/**
 * Integers JSON carries exactly but no `integer` column holds (2^31 and 2^53 − 2), and below any
 * count; sent for every field, so a number field must bound them and a text field refuse them.
 */
export const OUT_OF_RANGE_INTEGERS = ["2147483648", "9007199254740990", "-1"] as const;
/** Dates a date-time field must refuse (years 1970–2999 are kept): far future, far past, year 0. */
export const OUT_OF_BOUNDS_DATES = ["9999-12-31T00:00:00Z", "0001-01-01T00:00:00Z", "0000-01-01T00:00:00Z"] as const;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(T|$)/;

const NON_IDS = ["not-an-id", "%00", "a%00b", ...OUT_OF_RANGE_INTEGERS, "..%2f..%2fetc", "1%20OR%201%3D1", "99999999999999999999999", "%F0%9F%92%A3", "00000000-0000-0000-0000-00000000000g"];

function wrongTypes(value: unknown): unknown[] {
  if (typeof value === "string") return [12345, true, ["list"], { an: "object" }];
  if (typeof value === "number") return ["text", [1]];
  if (typeof value === "boolean") return ["yes", 0];
  if (Array.isArray(value)) return ["text", 7, { not: "a list" }];
  if (value && typeof value === "object") return ["text", 42, ["a list"]];
  return [];
}

/** Every bad input for a route whose valid body is `valid`. */
export function badInputs(valid: Record<string, unknown>, required: readonly string[], random: () => number, badIdPath?: (id: string) => string, longText: readonly string[] = []): BadInput[] {
  const json = (body: unknown) => JSON.stringify(body);
  const cases: BadInput[] = [];
  const withField = (key: string, value: string) => {
    // Spliced as text so values JSON.stringify cannot produce (1e400, deep nesting) reach the server.
    const others = Object.entries(valid).filter(([k]) => k !== key).map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`);
    return `{${[...others, `${JSON.stringify(key)}:${value}`].join(",")}}`;
  };

  for (const [key, value] of Object.entries(valid)) {
    for (const wrong of wrongTypes(value)) cases.push({ label: `${key}: wrong type ${json(wrong).slice(0, 20)}`, payload: withField(key, json(wrong)) });
    cases.push({ label: `${key}: huge number`, payload: withField(key, pick(random, ["1e400", "-1e400", "123456789012345678901234567890"])) });
    for (const n of OUT_OF_RANGE_INTEGERS) cases.push({ label: `${key}: out-of-range integer ${n}`, payload: withField(key, n) });
    if (typeof value === "string" && ISO_DATE.test(value)) {
      for (const date of OUT_OF_BOUNDS_DATES) cases.push({ label: `${key}: out-of-bounds date ${date}`, payload: withField(key, json(date)) });
    }
    cases.push({ label: `${key}: nested 5000 deep`, payload: withField(key, nested(5000)) });
    if (typeof value === "string") {
      const at = Math.floor(random() * 8);
      if (longText.includes(key)) cases.push({ label: `${key}: over the body limit`, payload: withField(key, json(OVER_BODY_STRING)) });
      else cases.push({ label: `${key}: 1 MB string`, payload: withField(key, json(MB_STRING)) });
      cases.push({ label: `${key}: U+0000`, payload: withField(key, json(`${"ab".slice(0, at % 3)}x\u0000y`)) });
      cases.push({ label: `${key}: lone surrogate`, payload: withField(key, json(`x${pick(random, ["\uD800", "\uDBFF", "\uDC00", "\uDFFF"])}y`)) });
    } else if (value && typeof value === "object" && !Array.isArray(value)) {
      cases.push({ label: `${key}: U+0000 inside`, payload: withField(key, json({ ...value, "X-K": "a\u0000b" })) });
      cases.push({ label: `${key}: U+0000 in a key`, payload: withField(key, json({ ...value, "k\u0000": "v" })) });
      cases.push({ label: `${key}: lone surrogate inside`, payload: withField(key, json({ ...value, "X-K": "a\uD83Db" })) });
      cases.push({ label: `${key}: nested 40 deep inside`, payload: withField(key, json({ deep: JSON.parse(nested(40)) })) });
    }
  }
  // A range must run forwards: `to` before `from`, or equal to it, holds nothing.
  if (typeof valid.from === "string" && typeof valid.to === "string") {
    cases.push({ label: "inverted range", payload: json({ ...valid, from: valid.to, to: valid.from }) });
    cases.push({ label: "empty range (from = to)", payload: json({ ...valid, to: valid.from }) });
  }
  for (const key of required) {
    const rest = Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));
    cases.push({ label: `missing ${key}`, payload: json(rest) });
  }
  cases.push({ label: "invalid JSON", payload: `{"${Object.keys(valid)[0] ?? "a"}": ` });
  cases.push({ label: "trailing garbage", payload: `${json(valid)} x` });
  cases.push({ label: "body is a list", payload: json([valid]) });
  cases.push({ label: "body is null", payload: "null" });
  cases.push({ label: "body is a string", payload: json("text") });
  cases.push({ label: "whole body nested 10000 deep", payload: nested(10_000) });
  cases.push({ label: "empty body with JSON type", payload: "" });
  cases.push({ label: "text/plain body", payload: "hello", contentType: "text/plain" });
  cases.push({ label: "form-encoded body", payload: "name=x&email=y", contentType: "application/x-www-form-urlencoded" });
  cases.push({ label: "XML body", payload: "<a>1</a>", contentType: "application/xml" });
  cases.push({ label: "JSON with U+0000 in the body's text", payload: `{"a":"\\u0000"}` });
  if (badIdPath) for (const id of NON_IDS) cases.push({ label: `non-id path ${id}`, path: badIdPath(id), payload: json(valid) });
  return cases;
}
