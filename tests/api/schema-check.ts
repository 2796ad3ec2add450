/**
 * Checks a JSON value against a schema of the API's document (JSON Schema 2020-12, the keywords
 * the zod converter writes), listing each place it breaks. Ours rather than a validator package:
 * the project has none among its dependencies, and the document uses a small set of keywords.
 */
type Schema = Record<string, unknown>;
export type ApiDocument = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, Schema>; responses: Record<string, Schema> } };

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** `#/components/schemas/X` (or any pointer into the document) to what it names. */
export function resolve(doc: ApiDocument, schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === "string") {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part.replaceAll("~1", "/").replaceAll("~0", "~")], doc) as Schema;
  }
  return current;
}

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "integer":
      return Number.isInteger(value);
    default:
      return typeof value === type;
  }
}

export function schemaProblems(doc: ApiDocument, schemaOrRef: Schema, value: unknown, at = "$"): string[] {
  const schema = resolve(doc, schemaOrRef);
  const problems: string[] = [];
  const fail = (what: string) => problems.push(`${at}: ${what} (got ${JSON.stringify(value)?.slice(0, 80)})`);
  const s = schema as Record<string, never>;
  if (s.type !== undefined && ![s.type].flat().some((t: string) => typeMatches(t, value))) return [`${at}: not ${JSON.stringify(s.type)} (got ${JSON.stringify(value)?.slice(0, 80)})`];
  if (s.enum && !(s.enum as unknown[]).some((e) => e === value)) fail(`not one of ${JSON.stringify(s.enum)}`);
  if ("const" in s && s.const !== value) fail(`not ${JSON.stringify(s.const)}`);
  for (const key of ["anyOf", "oneOf"] as const) {
    if (!s[key]) continue;
    const passing = (s[key] as Schema[]).filter((sub) => schemaProblems(doc, sub, value, at).length === 0).length;
    if (passing === 0 || (key === "oneOf" && passing > 1)) fail(`${passing} of its ${key} alternatives match`);
  }
  for (const sub of (s.allOf ?? []) as Schema[]) problems.push(...schemaProblems(doc, sub, value, at));
  if (s.not && schemaProblems(doc, s.not, value, at).length === 0) fail(`matches what it must not: ${JSON.stringify(s.not).slice(0, 80)}`);
  // A rule that holds only when another does (e.g. categories once the scale is "categories").
  if (s.if) {
    const branch = (schemaProblems(doc, s.if, value, at).length === 0 ? s.then : s.else) as Schema | undefined;
    if (branch) problems.push(...schemaProblems(doc, branch, value, at));
  }
  if (typeof value === "string") {
    const length = [...value].length;
    if (s.minLength !== undefined && length < s.minLength) fail(`shorter than ${s.minLength}`);
    if (s.maxLength !== undefined && length > s.maxLength) fail(`longer than ${s.maxLength}`);
    if (s.pattern && !new RegExp(s.pattern, "u").test(value)) fail(`does not match ${s.pattern}`);
    if (s.format === "date-time" && !DATE_TIME.test(value)) fail("not a date-time");
    if (s.format === "email" && !EMAIL.test(value)) fail("not an email address");
    if (s.format === "uri" && !URL.canParse(value)) fail("not a URI");
    if (s.format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) fail("not a date");
  }
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) fail(`below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) fail(`above ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum) fail(`not above ${s.exclusiveMinimum}`);
    if (s.exclusiveMaximum !== undefined && value >= s.exclusiveMaximum) fail(`not below ${s.exclusiveMaximum}`);
  }
  if (Array.isArray(value)) {
    if (s.minItems !== undefined && value.length < s.minItems) fail(`fewer than ${s.minItems} items`);
    if (s.maxItems !== undefined && value.length > s.maxItems) fail(`more than ${s.maxItems} items`);
    const prefix = (s.prefixItems ?? []) as Schema[];
    value.forEach((item, i) => {
      const itemSchema = prefix[i] ?? (s.items as Schema | undefined);
      if (itemSchema) problems.push(...schemaProblems(doc, itemSchema, item, `${at}[${i}]`));
    });
  }
  if (typeMatches("object", value)) {
    const object = value as Record<string, unknown>;
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const name of (s.required ?? []) as string[]) if (!(name in object)) fail(`no ${name}`);
    for (const [name, needs] of Object.entries((s.dependentRequired ?? {}) as Record<string, string[]>)) {
      if (name in object) for (const other of needs) if (!(other in object)) fail(`${name} without ${other}`);
    }
    for (const [name, inner] of Object.entries(object)) {
      if (s.propertyNames) problems.push(...schemaProblems(doc, s.propertyNames, name, `${at} key ${name}`));
      if (properties[name]) problems.push(...schemaProblems(doc, properties[name], inner, `${at}.${name}`));
      else if (s.additionalProperties === false) fail(`unexpected ${name}`);
      else if (typeof s.additionalProperties === "object") problems.push(...schemaProblems(doc, s.additionalProperties, inner, `${at}.${name}`));
    }
  }
  return problems;
}

/** The schema of an operation's answer with `status` and JSON content, or why there is none. */
export function responseSchema(doc: ApiDocument, path: string, method: string, status: number): { schema?: Schema; documented: boolean } {
  const operation = doc.paths[path]?.[method.toLowerCase()] as { responses: Record<string, Schema> } | undefined;
  if (!operation) return { documented: false };
  const response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
  if (!response) return { documented: false };
  const content = resolve(doc, response).content as Record<string, { schema?: Schema }> | undefined;
  return { documented: true, schema: content?.["application/json"]?.schema };
}
