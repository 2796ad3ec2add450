/**
 * The document's named schemas, tidied once every operation is in: only the names an operation
 * reaches are kept (a shared module exports shapes the API never sends, such as the web form's),
 * and a request's variant is called by the plain name when the answer's is not used. The zod
 * transform names the two variants of one schema `X` (what the server sends) and `XInput` (what it
 * accepts), since defaults and transforms can make them differ.
 */
import { INPUT_EXAMPLES_KEY } from "../../shared/examples.ts";
import { apiSchemaNames } from "./openapi-components.ts";

type Json = Record<string, unknown>;
const PREFIX = "#/components/schemas/";

function refsIn(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (value && typeof value === "object") {
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith(PREFIX)) into.add(inner.slice(PREFIX.length));
      else refsIn(inner, into);
    }
  }
}

export function namedSchemasInUse(doc: Json): Json {
  const components = doc.components as Json & { schemas: Record<string, unknown> };
  // The converter's `$schema` and `$id` say nothing inside an OpenAPI 3.1 document (its dialect is JSON Schema 2020-12).
  const schemas = Object.fromEntries(
    Object.entries(components.schemas).map(([name, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as Json;
      return [name, rest];
    }),
  );
  const { schemas: _all, ...otherComponents } = components;
  const used = new Set<string>();
  refsIn({ ...doc, components: otherComponents }, used);
  // Follow the names the used schemas name: a Set's iteration also visits what is added during it.
  for (const name of used) refsIn(schemas[name], used);
  const renames = new Map<string, string>();
  for (const name of used) {
    const plain = name.slice(0, -"Input".length);
    // Unused, or the same shape both ways (an enum, a plain object): one name.
    const same = used.has(plain) && JSON.stringify(schemas[name]) === JSON.stringify(schemas[plain]);
    if (name.endsWith("Input") && apiSchemaNames.has(plain) && (!used.has(plain) || same)) renames.set(name, plain);
  }
  const kept = Object.fromEntries([...used].sort().filter((name) => !renames.has(name) || !used.has(renames.get(name)!)).map((name) => [renames.get(name) ?? name, schemas[name]]));
  let text = JSON.stringify({ ...doc, components: { ...otherComponents, schemas: kept } });
  for (const [from, to] of renames) text = text.replaceAll(`"${PREFIX}${from}"`, `"${PREFIX}${to}"`);
  return JSON.parse(text) as Json;
}

/** A request shape's examples (shared/examples.ts), wherever the converter wrote them, as its JSON Schema `examples`. */
export function withInputExamples(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withInputExamples);
  if (!value || typeof value !== "object") return value;
  const { [INPUT_EXAMPLES_KEY]: examples, ...rest } = value as Json;
  const inner = Object.fromEntries(Object.entries(rest).map(([key, v]) => [key, key === "examples" ? v : withInputExamples(v)]));
  return examples === undefined ? inner : { ...inner, examples };
}
