/**
 * The API against its own document, property-based: for every operation, requests generated from
 * its schemas (path, query, headers, body; now and then a body of any JSON) are sent with an API
 * key. No answer may be a 5xx, have a status the operation does not document, or carry JSON that
 * breaks the documented schema. Bounded (a few requests per operation) to stay well under a minute;
 * `FUZZ_RUNS=200 npx vitest run tests/api/conformance.test.ts` is the deep run (~20,000 requests).
 */
import fc from "fast-check";
import { expect, it } from "vitest";
import { useTestApp } from "../harness.ts";
import { servedDocument, testClient } from "./client.ts";
import { arbitraryOf } from "./schema-arbitrary.ts";
import { responseSchema, schemaProblems, type ApiDocument } from "./schema-check.ts";
import { queryString } from "./query-string.ts";

const RUNS_PER_OPERATION = Number(process.env.FUZZ_RUNS) || 8;
const METHODS = ["get", "post", "put", "patch", "delete"] as const;
type Parameter = { name: string; in: string; required?: boolean; schema: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; requestBody?: { required?: boolean; content: Record<string, { schema: Record<string, unknown> }> } };
type Generated = { path: Record<string, string>; query: Record<string, unknown>; headers: Record<string, string>; body?: unknown };

const file = useTestApp({ users: ["Ada"] });

function requestOf(doc: ApiDocument, op: Operation, ids: string[]): fc.Arbitrary<Generated> {
  const place = (where: string) => (op.parameters ?? []).filter((p) => p.in === where);
  // A path id is sometimes one that exists, so more than the 404 path is tried.
  const path = fc.record(Object.fromEntries(place("path").map((p) => [p.name, fc.oneof(arbitraryOf(doc, p.schema).map(String), fc.constantFrom(...ids))])));
  const optional = (params: Parameter[]) =>
    fc.record(Object.fromEntries(params.map((p) => [p.name, arbitraryOf(doc, p.schema)])), { requiredKeys: params.filter((p) => p.required).map((p) => p.name) });
  const query = optional(place("query"));
  const headers = optional(place("header")) as fc.Arbitrary<Record<string, string>>;
  const schema = op.requestBody?.content["application/json"]?.schema;
  const body = schema ? fc.oneof({ weight: 4, arbitrary: arbitraryOf(doc, schema) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) }) : fc.constant(undefined);
  return fc.record({ path, query, headers, body }) as fc.Arbitrary<Generated>;
}

it("answers every operation's generated requests with a documented status and schema, and never a 5xx", async () => {
  const { app, users } = file;
  const doc = await servedDocument(app);
  // Keys made by a session (a key may not make keys); several, so the per-key rate limit is not what is tested.
  const keys = await Promise.all(["fuzz 1", "fuzz 2", "fuzz 3", "fuzz 4"].map(async (name) => (await file.as(users.Ada).post("/api/api-keys", { name })).json().key as string));
  const api = testClient(app, doc, keys[0]!);
  const assistant = (await api.POST("/api/assistants", { body: { name: "Fuzzed" } })).data!;
  const base = (await api.POST("/api/knowledge-bases", { body: { name: "Fuzzed" } })).data!;
  const ids = [assistant.id, base.id];

  const failures: string[] = [];
  let sent = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      try {
        await fc.assert(
          fc.asyncProperty(requestOf(doc, op, ids), async (req) => {
            const key = keys[sent++ % keys.length]!;
            const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(req.path[name] ?? ""));
            const search = queryString(req.query);
            const res = await app.inject({
              method: method.toUpperCase() as "GET",
              url: search ? `${url}?${search}` : url,
              headers: { authorization: `Bearer ${key}`, ...req.headers, ...(req.body === undefined ? {} : { "content-type": "application/json" }) },
              ...(req.body === undefined ? {} : { payload: JSON.stringify(req.body) }),
            });
            const what = `${method.toUpperCase()} ${path} → ${res.statusCode} ${res.body.slice(0, 200)}`;
            expect(res.statusCode, what).toBeLessThan(500);
            const { documented, schema } = responseSchema(doc, path, method, res.statusCode);
            expect(documented, `undocumented status: ${what}`).toBe(true);
            if (schema && String(res.headers["content-type"]).includes("application/json")) expect(schemaProblems(doc, schema, res.json()), what).toEqual([]);
          }),
          { numRuns: RUNS_PER_OPERATION, endOnFailure: true },
        );
      } catch (err) {
        failures.push(String((err as Error).message).split("\n").slice(0, 12).join("\n"));
      }
    }
  }
  expect(failures).toEqual([]);
  expect(sent).toBeGreaterThan(900);
}, 30_000 * RUNS_PER_OPERATION);

