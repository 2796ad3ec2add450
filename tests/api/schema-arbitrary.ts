/**
 * fast-check arbitraries from the API document's schemas: values that follow a schema (types,
 * enums, lengths, ranges, patterns, formats, required fields), small enough to send many. A URL
 * comes out under the reserved `.invalid` domain, never a reachable address, so a generated
 * request never leaves this machine.
 */
import fc from "fast-check";
import { resolve, type ApiDocument } from "./schema-check.ts";

type Schema = Record<string, never>;
const MAX_STRING = 24;
const MAX_ITEMS = 3;

/** A URL no request can reach: the reserved `.invalid` top-level domain (RFC 6761). */
const unreachableUrl = fc.tuple(fc.constantFrom("https", "http"), fc.domain(), fc.webPath()).map(([scheme, domain, path]) => `${scheme}://${domain.replace(/\.[a-z]+$/, "")}.invalid${path}`);

function stringOf(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? MAX_STRING, MAX_STRING));
  if (schema.format === "date-time") return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === "date") return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  if (schema.format === "uri") return schema.pattern ? unreachableUrl.filter((url) => new RegExp(schema.pattern!).test(url)) : unreachableUrl;
  if (schema.format === "ipv4") return fc.ipV4();
  if (schema.format === "ipv6") return fc.ipV6();
  // The document's own formats (src/shared/wire-formats.ts).
  if (schema.format === "iana-time-zone") return fc.constantFrom(...Intl.supportedValuesOf("timeZone"));
  if (schema.format === "ip-or-cidr") {
    const cidr = (ip: fc.Arbitrary<string>, bits: number) => fc.tuple(ip, fc.option(fc.integer({ min: 0, max: bits }))).map(([a, n]) => (n === null ? a : `${a}/${n}`));
    return fc.oneof(cidr(fc.ipV4(), 32), cidr(fc.ipV6(), 128));
  }
  if (schema.format === "sip-uri") {
    return fc
      .tuple(fc.constantFrom("sip", "sips"), fc.option(fc.stringMatching(/^[a-z0-9]{1,8}$/)), fc.domain(), fc.option(fc.integer({ min: 1, max: 65535 })))
      .map(([scheme, user, host, port]) => `${scheme}:${user ? `${user}@` : ""}${host}${port ? `:${port}` : ""}`);
  }
  if (schema.format === "email" && !schema.pattern) return fc.emailAddress();
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => [...s].length >= minLength && [...s].length <= (schema.maxLength ?? Infinity));
    } catch {
      // A pattern fast-check cannot generate from: plain text, which the server may refuse (a documented 400).
    }
  }
  return fc.string({ minLength, maxLength, unit: "grapheme-ascii" });
}

function numberOf(schema: Schema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : Number.EPSILON) : -1000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : Number.EPSILON) : 100_000);
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

export function arbitraryOf(doc: ApiDocument, schemaOrRef: Record<string, unknown>, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(doc, schemaOrRef) as Schema;
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  if ("const" in schema) return fc.constant(schema.const);
  const alternatives = (schema.anyOf ?? schema.oneOf) as Record<string, unknown>[] | undefined;
  // Alternatives that are whole shapes are made each; ones that only constrain the shape around them
  // (required keys, `not`) leave the making to that shape, and the caller keeps what the document passes.
  if (alternatives && (schema.type === undefined || alternatives.every((s) => "type" in s || "$ref" in s))) return fc.oneof(...alternatives.map((s) => arbitraryOf(doc, s, depth)));
  const all = schema.allOf as Record<string, unknown>[] | undefined;
  // Several patterns on one text (zod writes each .regex() so): made from the last, kept when all match.
  if (all?.every((sub) => Object.keys(sub).join() === "pattern")) {
    const { allOf: _all, ...rest } = schema;
    const patterns = all.map((sub) => new RegExp(sub.pattern as string, "u"));
    return stringOf({ ...rest, pattern: all.at(-1)!.pattern } as unknown as Schema).filter((s) => patterns.every((p) => p.test(s)));
  }
  if (all && schema.type !== undefined) {
    const { allOf: _all, ...rest } = schema;
    return arbitraryOf(doc, rest, depth);
  }
  if (all) return arbitraryOf(doc, all[0]!, depth);
  const types = [schema.type ?? []].flat() as string[];
  if (types.length > 1) return fc.oneof(...types.map((type) => arbitraryOf(doc, { ...schema, type }, depth)));
  switch (types[0]) {
    case "string":
      return stringOf(schema);
    case "integer":
      return numberOf(schema, true);
    case "number":
      return numberOf(schema, false);
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array": {
      const minLength = schema.minItems ?? 0;
      const items = schema.items ? arbitraryOf(doc, schema.items, depth + 1) : fc.string();
      return fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? MAX_ITEMS, MAX_ITEMS)) });
    }
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      const required = (schema.required ?? []) as string[];
      // Deep optional fields are left out, so a value stays small.
      const keys = Object.keys(properties).filter((k) => depth < 4 || required.includes(k));
      const record = fc.record(Object.fromEntries(keys.map((k) => [k, arbitraryOf(doc, properties[k]!, depth + 1)])), { requiredKeys: required.filter((k) => keys.includes(k)) });
      if (typeof schema.additionalProperties !== "object" || Object.keys(properties).length) return record;
      const key = schema.propertyNames ? (arbitraryOf(doc, schema.propertyNames, depth + 1) as fc.Arbitrary<string>) : fc.string({ minLength: 1, maxLength: 12 });
      return fc.dictionary(key, arbitraryOf(doc, schema.additionalProperties, depth + 1), { maxKeys: MAX_ITEMS });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
