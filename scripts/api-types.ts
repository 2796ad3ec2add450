/**
 * The typed client's types, generated from the API's OpenAPI document: `paths` in the form
 * openapi-fetch reads (the form openapi-typescript writes), and one named type per schema, made
 * by json-schema-to-typescript. openapi-typescript itself needs the TypeScript 5 compiler API,
 * which this project (on TypeScript 7) does not have.
 *
 * `npm run api:types` writes src/client/api-types.ts. The file is committed, not made at test
 * set-up: `tsc -b` checks the tests and the README's example against it without a server, and
 * src/client/api-types.test.ts fails when the served document no longer gives the same file.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { compile, type JSONSchema } from "json-schema-to-typescript";

type Json = Record<string, unknown>;
type Parameter = { name: string; in: "query" | "path" | "header" | "cookie"; required?: boolean; schema: JSONSchema };
type Content = Record<string, { schema?: JSONSchema }>;
type Operation = { operationId: string; parameters?: Parameter[]; requestBody?: { required?: boolean; content: Content }; responses: Record<string, { $ref?: string; content?: Content }> };

export const API_TYPES_FILE = join(import.meta.dirname, "../src/client/api-types.ts");
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
const pascal = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const key = (s: string) => (/^[A-Za-z_$][\w$]*$/.test(s) ? s : JSON.stringify(s));

const SCHEMA_REF = "#/components/schemas/";

/** The schema with each `$ref` to a named schema replaced by that name as a TypeScript type. */
function namesForRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(namesForRefs);
  if (!schema || typeof schema !== "object") return schema;
  const { $ref, ...rest } = schema as Json;
  const named = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, namesForRefs(v)]));
  return typeof $ref === "string" && $ref.startsWith(SCHEMA_REF) ? { ...named, tsType: $ref.slice(SCHEMA_REF.length) } : { ...named, ...($ref === undefined ? {} : { $ref }) };
}

type ObjectSchema = { type: "object"; properties: Record<string, JSONSchema>; required?: string[]; additionalProperties?: unknown };
const isObject = (s: JSONSchema): s is JSONSchema & ObjectSchema =>
  s.type === "object" && !!s.properties && Object.keys(s).every((k) => ["type", "properties", "required", "additionalProperties", "description", "examples"].includes(k));
/** Alike as TypeScript types: a default value (which the types do not show) aside. */
const same = (a: unknown, b: unknown) => JSON.stringify(a, withoutDefault) === JSON.stringify(b, withoutDefault);
const withoutDefault = (key: string, value: unknown) => (key === "default" ? undefined : value);

/**
 * How a schema is written in terms of another, so that a shape the API repeats (an update that
 * is its create's fields all optional, a record that is its summary and more, a list's and an
 * export's query) stands once in the file: `Partial<A>`, `A`, or `interface B extends A`. The
 * base is the largest object schema whose every field B has alike (same schema, same
 * requiredness) and that covers at least half of B, so that a small, coincidental overlap (an
 * id and a name) does not become a base. Only a smaller (or earlier, when as large) schema is a
 * base, so no chain loops.
 */
type Derivation = { kind: "partial" | "alias" | "extends"; base: string };
function derivations(definitions: Record<string, JSONSchema>): Map<string, Derivation> {
  const objects = Object.entries(definitions).filter((e): e is [string, JSONSchema & ObjectSchema] => isObject(e[1]));
  const rank = new Map(objects.map(([name, s], i) => [name, Object.keys(s.properties).length * 10_000 + i]));
  const found = new Map<string, Derivation>();
  for (const [name, b] of objects) {
    const bKeys = Object.keys(b.properties);
    const bRequired = new Set(b.required ?? []);
    let best: { base: string; size: number; kind: Derivation["kind"] } | undefined;
    for (const [baseName, a] of objects) {
      if (baseName === name || rank.get(baseName)! > rank.get(name)! || !same(a.additionalProperties, b.additionalProperties)) continue;
      const aKeys = Object.keys(a.properties);
      if (aKeys.length < 4 || aKeys.length * 2 < bKeys.length || !aKeys.every((k) => same(a.properties[k], b.properties[k]))) continue;
      const aRequired = new Set(a.required ?? []);
      const sameRequired = aKeys.every((k) => aRequired.has(k) === bRequired.has(k));
      const kind = aKeys.length === bKeys.length ? (sameRequired ? "alias" : bRequired.size === 0 ? "partial" : undefined) : sameRequired ? "extends" : undefined;
      if (kind && (!best || aKeys.length > best.size)) best = { base: baseName, size: aKeys.length, kind };
    }
    if (best) found.set(name, { kind: best.kind, base: best.base });
  }
  return found;
}

/** A schema's documented examples as JSDoc `@example` blocks (the reference's request examples, shared/examples.ts). */
function exampleLines(examples: unknown): string[] | undefined {
  if (!Array.isArray(examples) || examples.length === 0) return undefined;
  return examples.flatMap((example) => ["@example", ...JSON.stringify(example, null, 2).split("\n")]);
}

export async function renderApiTypes(doc: Json): Promise<string> {
  const components = doc.components as { schemas: Record<string, JSONSchema>; responses: Record<string, { content?: Content }> };
  const definitions: Record<string, JSONSchema> = { ...components.schemas };
  /** A schema as a type's name: a named schema by its own name, an inline one under `name`. */
  const typeOf = (schema: JSONSchema | undefined, name: string): string => {
    if (!schema) return "unknown";
    const ref = (schema as { $ref?: string }).$ref;
    if (ref?.startsWith(SCHEMA_REF)) return ref.slice(SCHEMA_REF.length);
    definitions[name] = schema;
    return name;
  };
  const contentOf = (content: Content | undefined, name: string) =>
    content ? `{ ${Object.entries(content).map(([type, { schema }]) => `${JSON.stringify(type)}: ${typeOf(schema, name)}`).join("; ")} }` : "never";
  const answer = (content: Content | undefined, name: string) => `{ headers: { [name: string]: unknown }; content: ${contentOf(content, name)} }`;
  // The shared answers (the errors most operations give) written once, and referred to by name.
  const sharedAnswers = Object.entries(components.responses).map(([name, { content }]) => `    ${key(name)}: ${answer(content, `${name}Response`)};`);

  const operations: string[] = [];
  const paths: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
    const methods: string[] = [];
    for (const method of METHODS) {
      const op = item[method];
      // A method the path does not have is left out: openapi-fetch offers only the ones present.
      if (!op) continue;
      const id = op.operationId;
      const parameters = ["query", "header", "path", "cookie"].map((place) => {
        const own = (op.parameters ?? []).filter((p) => p.in === place);
        if (!own.length) return `${place}?: never;`;
        const required = own.filter((p) => p.required).map((p) => p.name);
        const schema = { type: "object", properties: Object.fromEntries(own.map((p) => [p.name, p.schema])), required, additionalProperties: false } as JSONSchema;
        return `${place}${required.length ? "" : "?"}: ${typeOf(schema, `${pascal(id)}${pascal(place)}`)};`;
      });
      const body = op.requestBody ? ` requestBody${op.requestBody.required ? "" : "?"}: { content: ${contentOf(op.requestBody.content, `${pascal(id)}Body`)} };` : "";
      const responses = Object.entries(op.responses).map(([status, response]) => {
        const type = response.$ref ? `components["responses"][${JSON.stringify(response.$ref.replace("#/components/responses/", ""))}]` : answer(response.content, `${pascal(id)}${status}`);
        return `${/^\d+$/.test(status) ? status : JSON.stringify(status)}: ${type};`;
      });
      operations.push(`  ${id}: { parameters: { ${parameters.join(" ")} };${body} responses: { ${responses.join(" ")} } };`);
      methods.push(`${method}: operations[${JSON.stringify(id)}];`);
    }
    paths.push(`  ${key(path)}: { ${methods.join(" ")} };`);
  }

  const derived = derivations(definitions);
  const schemas: string[] = [];
  for (const [name, full] of Object.entries(definitions)) {
    const how = derived.get(name);
    const examples = exampleLines((full as Json).examples);
    if (how?.kind === "alias" || how?.kind === "partial") {
      const comment = examples ? `/**\n${examples.map((line) => ` * ${line}`.trimEnd()).join("\n")}\n */\n` : "";
      schemas.push(`${comment}export type ${name} = ${how.kind === "partial" ? `Partial<${how.base}>` : how.base}`);
      continue;
    }
    let schema = examples ? ({ ...full, description: [(full as Json).description, ...examples].filter(Boolean).join("\n") } as JSONSchema) : full;
    if (how) {
      // Only the fields the base does not have; the rest come from `extends`.
      const { properties, required = [] } = full as ObjectSchema;
      const baseKeys = Object.keys((definitions[how.base] as ObjectSchema).properties);
      const own = Object.fromEntries(Object.entries(properties).filter(([k]) => !baseKeys.includes(k)));
      schema = { ...schema, properties: own, required: required.filter((k) => k in own) } as JSONSchema;
    }
    let typed = await compile({ ...(namesForRefs(schema) as JSONSchema), title: name }, name, {
      bannerComment: "",
      additionalProperties: false,
      format: false,
      strictIndexSignatures: true,
      // A list of at most N items as a list, not as the N+1 tuples that would spell it out.
      maxItems: -1,
    });
    if (how) typed = typed.replace(`export interface ${name} {`, `export interface ${name} extends ${how.base} {`);
    schemas.push(typed.trim());
  }
  return [
    "// Generated by scripts/api-types.ts from GET /api/openapi.json: `npm run api:types`. Do not edit.",
    "/* eslint-disable */",
    schemas.join("\n"),
    `export interface components {\n  schemas: {\n${Object.keys(components.schemas).map((name) => `    ${key(name)}: ${name};`).join("\n")}\n  };\n  responses: {\n${sharedAnswers.join("\n")}\n  };\n}`,
    `export interface paths {\n${paths.join("\n")}\n}`,
    `export interface operations {\n${operations.join("\n")}\n}`,
    "",
  ].join("\n\n");
}

if (process.argv[1] === import.meta.filename) {
  const { servedDocument } = await import("./openapi-document.ts");
  writeFileSync(API_TYPES_FILE, await renderApiTypes(await servedDocument()));
  process.exit(0);
}
