/**
 * The API's typed client (src/client) for tests: requests go to the test app through `inject`,
 * and every answer is held to the app's own document — a status the operation does not document,
 * or JSON that breaks its schema, throws, so a document that drifts from the server fails the test.
 */
import createClient, { type Middleware } from "openapi-fetch";
import { createSwitchboardClient, type paths, type SwitchboardClient } from "../../src/client/api-client.ts";
import type { TestApp } from "../harness.ts";
import { responseSchema, schemaProblems, type ApiDocument } from "./schema-check.ts";

const BASE_URL = "http://switchboard.test";

/** `fetch` answered by the app itself, without a port. */
export function injectFetch(app: TestApp): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const res = await app.inject({ method: request.method as "GET", url: url.pathname + url.search, headers: Object.fromEntries(request.headers), ...(body ? { payload: body } : {}) });
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) headers.append(name, String(v));
    const empty = res.statusCode === 204 || res.statusCode === 304;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers });
  };
}

export async function servedDocument(app: TestApp): Promise<ApiDocument> {
  return (await app.inject({ method: "GET", url: "/api/openapi.json" })).json();
}

/** Throws when an answer is not what the document says the operation answers. */
export function documentChecks(doc: ApiDocument): Middleware {
  return {
    async onResponse({ request, response, schemaPath }) {
      const { documented, schema } = responseSchema(doc, schemaPath, request.method, response.status);
      const what = `${request.method} ${schemaPath} answered ${response.status}`;
      if (!documented) throw new Error(`${what}, which its operation does not document`);
      if (!schema || !response.headers.get("content-type")?.includes("application/json")) return undefined;
      const problems = schemaProblems(doc, schema, await response.clone().json());
      if (problems.length) throw new Error(`${what} with a body that breaks its schema:\n${problems.slice(0, 10).join("\n")}`);
      return undefined;
    },
  };
}

/** The client of a test app: through `inject`, or over a real socket when the app listens at `origin`. */
export function testClient(app: TestApp, doc: ApiDocument, apiKey: string, origin?: string): SwitchboardClient {
  const client = createSwitchboardClient(origin ? { baseUrl: origin, apiKey } : { baseUrl: BASE_URL, apiKey, fetch: injectFetch(app) });
  client.use(documentChecks(doc));
  return client;
}

/** The client of a signed-in person (their session cookie), for the routes no API key may call. */
export function sessionClient(app: TestApp, doc: ApiDocument, cookie: string): SwitchboardClient {
  const client = createClient<paths>({ baseUrl: BASE_URL, headers: { cookie }, fetch: injectFetch(app) });
  client.use(documentChecks(doc));
  return client;
}
