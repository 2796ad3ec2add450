import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, expect, inject } from "vitest";
import { buildApp, type AppConfig, type AppDeps } from "../src/server/app.ts";
import { loadConfig } from "../src/server/config.ts";
import { openDatabase, type Database } from "../src/server/db/client.ts";
import { withDatabase } from "./global-setup.ts";
import { injectPost, newAccount, signUp, type SignedUp } from "./sign-up.ts";

/** A fresh database for one test file: a clone of the migrated template (see global-setup.ts). */
export async function freshDatabase(): Promise<Database> {
  const pgTemplate = inject("pgTemplate");
  if (pgTemplate) {
    const name = `${pgTemplate.name}_${randomBytes(4).toString("hex")}`;
    const admin = new pg.Client({ connectionString: pgTemplate.adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name} TEMPLATE ${pgTemplate.name}`);
    await admin.end();
    return openDatabase({ kind: "postgres", url: withDatabase(pgTemplate.adminUrl, name) });
  }
  const template = inject("pgliteTemplate");
  if (!template) throw new Error("The test database template is missing: run the tests through vitest's global setup");
  return openDatabase({ kind: "pglite", loadDataDir: new Blob([template]) });
}

export function testConfig(overrides: Record<string, string> = {}): AppConfig {
  const config = loadConfig({
    NODE_ENV: "test",
    LOG_LEVEL: "silent",
    DATA_DIR: mkdtempSync(join(tmpdir(), "switchboard-test-")),
    ...overrides,
  });
  return { ...config, appSecret: "test-secret-0123456789abcdef0123456789abcdef" };
}

export async function buildTestApp(options: { config?: Record<string, string>; deps?: Partial<AppDeps> } = {}) {
  // A database the test brings stays the test's (it may read it after close): no second one is
  // opened (a PGlite clone costs seconds), and the app does not close it.
  const own = options.deps?.database ? null : await freshDatabase();
  const database = options.deps?.database ?? own!;
  const config = testConfig(options.config);
  const app = await buildApp(config, { ...options.deps, database });
  // After the app's own close (its job queue and lease still write while they stop): an
  // onClose hook added here would run first, since Fastify runs them last-added first.
  if (own) {
    const close = app.close.bind(app);
    app.close = (async () => {
      await close();
      await own.close();
    }) as unknown as typeof app.close;
  }
  await app.ready();
  return { app, db: database.db, config };
}

export type TestApp = Awaited<ReturnType<typeof buildTestApp>>["app"];

export interface FileApp<U extends string> {
  app: TestApp;
  db: Database["db"];
  config: AppConfig;
  /** The users the file asked for, by name, signed up before its first test. */
  users: Record<U, SignedUp>;
  /** `as(app, who)` on this file's app. */
  as: (who: { cookie: string } | null) => ReturnType<typeof as>;
}

/**
 * One app for a whole test file: built (and the named users signed up) before its first test,
 * closed after its last. Call at the top of the file and read the fields inside tests:
 * `const file = useTestApp({ users: ["Alice", "Bob"] })`, then `file.as(file.users.Alice).get(...)`.
 */
export function useTestApp<const U extends string = never>(
  options: { users?: readonly U[]; config?: Record<string, string>; deps?: Partial<AppDeps> } = {},
): FileApp<U> {
  const file = { users: {} as Record<U, SignedUp>, as: (who: { cookie: string } | null) => as(file.app, who) } as FileApp<U>;
  beforeAll(async () => {
    Object.assign(file, await buildTestApp(options));
    for (const name of options.users ?? []) file.users[name] = await signUpAndLogIn(file.app, name);
  });
  afterAll(() => file.app?.close());
  return file;
}

/** Signs up and logs in a new user through the real auth routes; returns its cookie and id. */
export const signUpAndLogIn = (app: TestApp, name = "Ada Lovelace"): Promise<SignedUp> => signUp(injectPost(app), newAccount(name));

export interface RawResponse {
  status: number;
  headers: import("node:http").IncomingHttpHeaders;
  body: string;
  /** `name=value` of every cookie set with a non-empty value. */
  cookies: string[];
}

/**
 * One request over a real socket with the path sent byte for byte (`app.inject` normalises dot
 * segments, which hides what a client can really send). The app must be listening.
 */
export async function rawRequest(
  app: TestApp,
  options: { method: string; path: string; body?: string | object; headers?: Record<string, string> },
): Promise<RawResponse> {
  const { request } = await import("node:http");
  const address = app.server.address();
  if (!address || typeof address !== "object") throw new Error("rawRequest: the app is not listening");
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  const headers: Record<string, string> = { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port: address.port, method: options.method, path: options.path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const cookies = (res.headers["set-cookie"] ?? []).map((c) => c.split(";")[0]!).filter((c) => !c.endsWith("="));
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8"), cookies });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The error of a `{ "error": { "code", "message" } }` answer. */
/** The body of a response that must have `status` (201: a POST that creates); a test fails here, with the body, on any other. */
export function expectBody<T>(res: { statusCode: number; body: string; json(): unknown }, status: number): T {
  expect(res.statusCode, res.body).toBe(status);
  return res.json() as T;
}

export interface ErrorBody {
  code: string;
  message: string;
}
export const errorOf = (res: { json: () => unknown }): ErrorBody => (res.json() as { error: ErrorBody }).error;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Requests to `app` as a signed-in user (its session cookie), or anonymously with `null`:
 * `as(app, ada).post("/api/tools", body)`. Extra headers add to (or replace) the cookie.
 */
export function as(app: TestApp, who: { cookie: string } | null) {
  const request = (method: Method, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    app.inject({
      method,
      url,
      headers: { ...(who ? { cookie: who.cookie } : {}), ...headers },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
  return {
    request,
    get: (url: string, headers?: Record<string, string>) => request("GET", url, undefined, headers),
    post: (url: string, payload?: unknown) => request("POST", url, payload),
    put: (url: string, payload?: unknown) => request("PUT", url, payload),
    patch: (url: string, payload?: unknown) => request("PATCH", url, payload),
    delete: (url: string) => request("DELETE", url),
  };
}
