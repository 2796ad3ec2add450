/**
 * The document is as strict as the server: a request body, or a GET's query string, that follows
 * its operation's schemas (formats, patterns, enums, and the rules between fields written as
 * if/then) is never refused as invalid. Requests are generated from the document, kept only when
 * the document's own checker passes them, and sent as the account's owner; a 400 or 422 that says
 * the request is invalid fails. A few refusals are about the world, not the request's shape (a
 * wrong current password, an assistant that is not the account's, a date already past, a cursor
 * the server never issued): the document says so in prose, and they are listed here with the reason.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { useTestApp } from "../harness.ts";
import { servedDocument } from "./client.ts";
import { arbitraryOf } from "./schema-arbitrary.ts";
import { schemaProblems, type ApiDocument } from "./schema-check.ts";
import { queryString } from "./query-string.ts";

const SAMPLES = 20;
/** The same bodies every run: a refusal found once is found again. */
const SEED = 20261128;
const METHODS = ["post", "put", "patch"] as const;
/** Refusals that depend on what exists or on the clock, by error code. */
const ABOUT_THE_WORLD = new Set([
  // The password must be the account's own.
  "invalid_password",
  // Ids in a body must name the account's own assistant or provider.
  "unknown_assistant",
  "unknown_provider",
  "unknown_tool",
  "unknown_knowledge_base",
  // A page's cursor is an opaque token the server issued (the last item's keyset): made-up text is none.
  "invalid_cursor",
]);
/**
 * Rules a schema cannot say, stated in the field's description instead: a comparison of two
 * values, the clock, or the path's credential name. By the refused field.
 */
const IN_PROSE = [
  /^\/expires_at$/, // an API key's expiry is in the future
  /^\/parameters\/required$/, // a tool's required parameters are among its properties
  /^\/schedule\/windows\/\d+\/end$/, // a campaign's window ends after it starts
  /^\/to$/, // a range's from is before its to
];
/** The shape of a credential's value depends on its name, in the path. */
const BY_PATH = ["/api/credentials/openai_api_key"];

type Parameter = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } };
/** An id nobody has, for a path parameter that is not one of a list. */
const NOBODY = "00000000-0000-4000-8000-000000000000";

/** The path with its parameters filled: one of the list when the parameter names one (a credential), else an id nobody has. */
function filledPath(doc: ApiDocument, path: string, operation: Operation, seed: number): string {
  const params = (operation.parameters ?? []).filter((p) => p.in === "path");
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const schema = params.find((p) => p.name === name)?.schema;
    return schema?.enum ? String(fc.sample(arbitraryOf(doc, schema), { numRuns: 1, seed })[0]) : NOBODY;
  });
}

/** Whether a refusal is one the document states in prose or that depends on the world, not the request's shape. */
function allowed(error: { code: string; issues?: { path: string }[] }, url: string): boolean {
  const field = error.issues?.[0]?.path;
  return ABOUT_THE_WORLD.has(error.code) || BY_PATH.includes(url) || (field !== undefined && IN_PROSE.some((rule) => rule.test(field)));
}

const file = useTestApp({ users: ["Ada"] });

it("never refuses as invalid a body that its operation's schema allows", async () => {
  const { app, users } = file;
  const doc = await servedDocument(app);
  const refused: string[] = [];
  let sent = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method] as Operation | undefined;
      const schema = operation?.requestBody?.content["application/json"]?.schema;
      if (!operation || !schema) continue;
      const bodies = fc.sample(arbitraryOf(doc, schema), { numRuns: SAMPLES * 5, seed: SEED }).filter((body) => schemaProblems(doc, schema, body).length === 0).slice(0, SAMPLES);
      expect(bodies.length, `${method} ${path}: no body follows its own schema`).toBeGreaterThan(0);
      for (const body of bodies) {
        const url = filledPath(doc, path, operation, SEED + sent);
        const res = await app.inject({ method: method.toUpperCase() as "POST", url, headers: { cookie: users.Ada.cookie, "content-type": "application/json" }, payload: JSON.stringify(body) });
        sent += 1;
        if (res.statusCode !== 400 && res.statusCode !== 422) continue;
        const error = res.json().error as { code: string; message: string; issues?: { path: string }[] };
        if (allowed(error, url)) continue;
        refused.push(`${method.toUpperCase()} ${path}: ${error.code} ${error.issues?.[0]?.path ?? ""} ${error.message} — body ${JSON.stringify(body).slice(0, 200)}`);
      }
    }
  }
  expect(refused).toEqual([]);
  expect(sent).toBeGreaterThan(300);
}, 300_000);

it("never refuses as invalid a query string that its operation's parameters allow", async () => {
  const { app, users } = file;
  const doc = await servedDocument(app);
  const refused: string[] = [];
  let sent = 0;
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    const operation = item.get as Operation | undefined;
    const parameters = (operation?.parameters ?? []).filter((p) => p.in === "query");
    if (!operation || parameters.length === 0) continue;
    operations += 1;
    // The query as one object, so the document's checker sees which parameters are required.
    const schema = {
      type: "object",
      properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema])),
      required: parameters.filter((p) => p.required).map((p) => p.name),
    };
    const queries = fc
      .sample(arbitraryOf(doc, schema) as fc.Arbitrary<Record<string, unknown>>, { numRuns: SAMPLES * 5, seed: SEED })
      .filter((query) => schemaProblems(doc, schema, query).length === 0)
      .slice(0, SAMPLES);
    expect(queries.length, `GET ${path}: no query follows its own parameters`).toBeGreaterThan(0);
    for (const query of queries) {
      const url = `${filledPath(doc, path, operation, SEED + sent)}?${queryString(query)}`;
      const res = await app.inject({ method: "GET", url, headers: { cookie: users.Ada.cookie } });
      sent += 1;
      if (res.statusCode !== 400 && res.statusCode !== 422) continue;
      const error = res.json().error as { code: string; message: string; issues?: { path: string }[] };
      if (allowed(error, url)) continue;
      refused.push(`GET ${path}: ${error.code} ${error.issues?.[0]?.path ?? ""} ${error.message} — ${url.slice(0, 300)}`);
    }
  }
  expect(refused).toEqual([]);
  expect(operations).toBeGreaterThan(10);
  expect(sent).toBe(operations * SAMPLES);
}, 300_000);
