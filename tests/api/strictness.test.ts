/**
 * The document is as strict as the server: a request body that follows its operation's schema
 * (formats, patterns, enums, and the rules between fields written as if/then) is never refused as
 * invalid. Bodies are generated from the document, kept only when the document's own checker
 * passes them, and sent as the account's owner; a 400 or 422 that says the body is invalid fails.
 * A few refusals are about the world, not the body's shape (a wrong current password, an assistant
 * that is not the account's, a date already past): the document says so in prose, and they are
 * listed here with the reason.
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { useTestApp } from "../harness.ts";
import { servedDocument } from "./client.ts";
import { arbitraryOf } from "./schema-arbitrary.ts";
import { schemaProblems } from "./schema-check.ts";

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

const file = useTestApp({ users: ["Ada"] });

it("never refuses as invalid a body that its operation's schema allows", async () => {
  const { app, users } = file;
  const doc = await servedDocument(app);
  const refused: string[] = [];
  let sent = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const schema = (item[method] as { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> } } | undefined)?.requestBody?.content["application/json"]?.schema;
      if (!schema) continue;
      const bodies = fc.sample(arbitraryOf(doc, schema), { numRuns: SAMPLES * 5, seed: SEED }).filter((body) => schemaProblems(doc, schema, body).length === 0).slice(0, SAMPLES);
      expect(bodies.length, `${method} ${path}: no body follows its own schema`).toBeGreaterThan(0);
      // A path parameter that names one of a list (a credential) is one of them; an id is one nobody has.
      const params = ((item[method] as { parameters?: { name: string; in: string; schema: Record<string, unknown> }[] }).parameters ?? []).filter((p) => p.in === "path");
      for (const body of bodies) {
        const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
          const schema = params.find((p) => p.name === name)?.schema;
          return schema?.enum ? String(fc.sample(arbitraryOf(doc, schema), { numRuns: 1, seed: SEED + sent })[0]) : "00000000-0000-4000-8000-000000000000";
        });
        const res = await app.inject({ method: method.toUpperCase() as "POST", url, headers: { cookie: users.Ada.cookie, "content-type": "application/json" }, payload: JSON.stringify(body) });
        sent += 1;
        if (res.statusCode !== 400 && res.statusCode !== 422) continue;
        const error = res.json().error as { code: string; message: string; issues?: { path: string }[] };
        const field = error.issues?.[0]?.path;
        if (ABOUT_THE_WORLD.has(error.code) || BY_PATH.includes(url) || (field !== undefined && IN_PROSE.some((rule) => rule.test(field)))) continue;
        refused.push(`${method.toUpperCase()} ${path}: ${error.code} ${error.issues?.[0]?.path ?? ""} ${error.message} — body ${JSON.stringify(body).slice(0, 200)}`);
      }
    }
  }
  expect(refused).toEqual([]);
  expect(sent).toBeGreaterThan(300);
}, 300_000);
