/**
 * The rules OpenAI's Structured Outputs apply to a `strict: true` JSON schema before a request is
 * accepted, as its guide states them: the root is an object (not anyOf); every object lists each
 * of its properties in `required` and sets `additionalProperties: false`; only the supported types
 * and keywords (string: pattern, format; number: minimum, maximum, exclusive*, multipleOf; array:
 * items, minItems, maxItems; enum, const, anyOf, $ref/$defs, description, title); at most 5000
 * properties and 10 levels of nesting; a name of [a-zA-Z0-9_-]{1,64}.
 *
 * `strictSchemaError` answers the provider's message for the first rule broken, or null.
 * `conforms` checks an answer against a schema (the fake's scripted answers must, as the real
 * service's always do).
 */

const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const COMMON = new Set(["type", "description", "title", "enum", "const", "anyOf", "$ref", "$defs", "definitions"]);
const BY_TYPE: Record<string, Set<string>> = {
  string: new Set(["pattern", "format"]),
  number: new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]),
  integer: new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]),
  object: new Set(["properties", "required", "additionalProperties"]),
  array: new Set(["items", "minItems", "maxItems"]),
  boolean: new Set(),
  null: new Set(),
};
const MAX_PROPERTIES = 5000;
const MAX_DEPTH = 10;
export const FORMAT_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

type Node = Record<string, unknown>;
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null && !Array.isArray(v);

class SchemaRuleError extends Error {}

function context(path: string[]): string {
  return `(${path.map((p) => `'${p}'`).join(", ")}${path.length === 1 ? "," : ""})`;
}

function typesOf(node: Node): string[] {
  const t = node.type;
  return Array.isArray(t) ? (t as string[]) : typeof t === "string" ? [t] : [];
}

export function strictSchemaError(name: string, schema: unknown): string | null {
  const prefix = `Invalid schema for response_format '${name}'`;
  if (!isNode(schema)) return `${prefix}: schema must be a JSON Schema of 'type: "object"', got 'type: "None"'.`;
  if (schema.type !== "object" || "anyOf" in schema) return `${prefix}: schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema.type ?? "None")}"'.`;
  let properties = 0;
  const walk = (node: unknown, path: string[], depth: number) => {
    const fail = (rule: string) => {
      throw new SchemaRuleError(`${prefix}: In context=${context(path)}, ${rule}`);
    };
    if (!isNode(node)) fail("schema must be an object.");
    const n = node as Node;
    if (depth > MAX_DEPTH) fail(`the schema exceeds the maximum nesting depth of ${MAX_DEPTH}.`);
    if (typeof n.$ref === "string") return;
    const types = typesOf(n);
    if (types.length === 0 && !("anyOf" in n) && !("enum" in n) && !("const" in n)) fail("schema must have a 'type' key.");
    for (const t of types) if (!TYPES.has(t)) fail(`'${t}' is not a supported type.`);
    const allowed = new Set([...COMMON, ...types.flatMap((t) => [...(BY_TYPE[t] ?? [])])]);
    for (const key of Object.keys(n)) if (!allowed.has(key)) fail(`'${key}' is not permitted.`);
    if ("enum" in n && (!Array.isArray(n.enum) || n.enum.length === 0)) fail("'enum' must be a non-empty array.");
    if (typeof n.format === "string" && !FORMATS.has(n.format)) fail(`'format' '${n.format}' is not supported.`);
    if (Array.isArray(n.anyOf)) n.anyOf.forEach((sub, i) => walk(sub, [...path, "anyOf", String(i)], depth + 1));
    for (const defs of ["$defs", "definitions"]) {
      if (isNode(n[defs])) for (const [k, sub] of Object.entries(n[defs])) walk(sub, [...path, defs, k], depth + 1);
    }
    if (types.includes("object")) {
      if (n.additionalProperties !== false) fail("'additionalProperties' is required to be supplied and to be false.");
      const props = isNode(n.properties) ? n.properties : {};
      const required = Array.isArray(n.required) ? (n.required as unknown[]) : null;
      const missing = Object.keys(props).find((k) => !required?.includes(k));
      if (required === null || missing !== undefined) {
        fail(`'required' is required to be supplied and to be an array including every key in properties.${missing ? ` Missing '${missing}'.` : ""}`);
      }
      const extra = required!.find((k) => typeof k !== "string" || !(k in props));
      if (extra !== undefined) fail(`'required' names '${String(extra)}', which is not in properties.`);
      for (const [k, sub] of Object.entries(props)) {
        properties += 1;
        if (properties > MAX_PROPERTIES) fail(`the schema has more than ${MAX_PROPERTIES} object properties.`);
        walk(sub, [...path, "properties", k], depth + 1);
      }
    }
    if (types.includes("array")) {
      if (!isNode(n.items)) fail("'items' is required for an array.");
      walk(n.items, [...path, "items"], depth + 1);
    }
  };
  try {
    walk(schema, [], 1);
    return null;
  } catch (err) {
    if (err instanceof SchemaRuleError) return err.message;
    throw err;
  }
}

/** Whether `value` matches `schema` (the strict subset; $ref resolved against the root's $defs). */
export function conforms(schema: unknown, value: unknown, root: unknown = schema): boolean {
  if (!isNode(schema)) return false;
  if (typeof schema.$ref === "string") {
    const [, bag, key] = /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref) ?? [];
    const target = bag && key && isNode(root) && isNode(root[bag]) ? (root[bag] as Node)[key] : undefined;
    return conforms(target, value, root);
  }
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((s) => conforms(s, value, root));
  if ("const" in schema && schema.const !== value) return false;
  if (Array.isArray(schema.enum) && !schema.enum.includes(value as never)) return false;
  const types = typesOf(schema);
  if (types.length === 0) return true;
  return types.some((t) => {
    switch (t) {
      case "null":
        return value === null;
      case "boolean":
        return typeof value === "boolean";
      case "string":
        if (typeof value !== "string") return false;
        if (schema.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
        return typeof schema.pattern !== "string" || new RegExp(schema.pattern).test(value);
      case "integer":
      case "number": {
        if (typeof value !== "number" || !Number.isFinite(value) || (t === "integer" && !Number.isInteger(value))) return false;
        if (typeof schema.minimum === "number" && value < schema.minimum) return false;
        if (typeof schema.maximum === "number" && value > schema.maximum) return false;
        return true;
      }
      case "array":
        return Array.isArray(value) && value.every((v) => conforms(schema.items, v, root));
      case "object": {
        if (!isNode(value)) return false;
        const props = isNode(schema.properties) ? schema.properties : {};
        const keys = Object.keys(value);
        return keys.every((k) => k in props) && Object.entries(props).every(([k, s]) => k in value && conforms(s, value[k], root));
      }
      default:
        return false;
    }
  });
}

/** The simplest answer that matches the schema (the fake's default reply). */
export function sampleOf(schema: unknown, root: unknown = schema): unknown {
  if (!isNode(schema)) return null;
  if (typeof schema.$ref === "string") {
    const [, bag, key] = /^#\/(\$defs|definitions)\/(.+)$/.exec(schema.$ref) ?? [];
    return sampleOf(bag && key && isNode(root) && isNode(root[bag]) ? (root[bag] as Node)[key] : null, root);
  }
  if (Array.isArray(schema.anyOf)) return sampleOf(schema.anyOf[0], root);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = typesOf(schema).find((t) => t !== "null") ?? "null";
  switch (type) {
    case "string":
      return schema.format === "date" ? "2026-11-25" : "";
    case "number":
    case "integer":
      return typeof schema.minimum === "number" ? schema.minimum : 0;
    case "boolean":
      return false;
    case "array":
      return [];
    case "object":
      return Object.fromEntries(Object.entries(isNode(schema.properties) ? schema.properties : {}).map(([k, s]) => [k, sampleOf(s, root)]));
    default:
      return null;
  }
}
