/**
 * The one sign-up of the test suites and benchmarks: a new account through the real auth routes,
 * then a login. Route tests (`app.inject`), the e2e fixtures (a browser's request context), the
 * multi-process tests and the benchmarks (`fetch`) differ only in how they POST, so that is all
 * each brings. Free of vitest and Playwright imports: every runner can load it.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";

/** POST a JSON body; answer the status, the body text and the `name=value` of each cookie set. */
export type PostJson = (path: string, body: object) => Promise<{ status: number; body: string; cookies: string[] }>;

export interface Account {
  name: string;
  email: string;
  password: string;
}

export interface SignedUp extends Account {
  /** The session, as a `cookie` request header. */
  cookie: string;
  userId: string;
  /** The team sign-up made, with the user as its owner: it takes the user's id. */
  organizationId: string;
}

let counter = 0;

/** A new account's details; the address is unique across processes (random) and within one (counter). */
export function newAccount(name = "Ada Lovelace", prefix = "user"): Account {
  return { name, email: `${prefix}${++counter}-${randomBytes(3).toString("hex")}@example.com`, password: "correct-horse-battery" };
}

export async function signUp(post: PostJson, account: Account = newAccount()): Promise<SignedUp> {
  const created = await post("/api/auth/sign-up/email", account);
  if (created.status !== 200) throw new Error(`sign-up failed: ${created.status} ${created.body}`);
  // Without e-mail confirmation sign-up has signed the user in already.
  if (created.cookies.some((c) => c.includes("session_token=") && !c.endsWith("="))) {
    const userId = (JSON.parse(created.body) as { user: { id: string } }).user.id;
    return { ...account, cookie: created.cookies.join("; "), userId, organizationId: userId };
  }
  const login = await post("/api/auth/sign-in/email", { email: account.email, password: account.password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${login.body}`);
  const userId = (JSON.parse(login.body) as { user: { id: string } }).user.id;
  return { ...account, cookie: login.cookies.join("; "), userId, organizationId: userId };
}

/** POST into an app in this process, without a socket. */
export const injectPost =
  (app: Pick<FastifyInstance, "inject">): PostJson =>
  async (path, body) => {
    const res = await app.inject({ method: "POST", url: path, payload: body });
    return { status: res.statusCode, body: res.body, cookies: res.cookies.map((c) => `${c.name}=${c.value}`) };
  };

/** POST over HTTP to a running server (another process, a benchmark's server). */
export const fetchPost =
  (origin: string): PostJson =>
  async (path, body) => {
    // Origin as a browser on the page sends it: the auth library refuses a POST without one.
    const headers = { "content-type": "application/json", origin };
    const res = await fetch(`${origin}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    return { status: res.status, body: await res.text(), cookies: res.headers.getSetCookie().map((c) => c.split(";")[0]!) };
  };

/** What `requestPost` needs of Playwright's APIRequestContext (named structurally: no Playwright import here). */
interface RequestContext {
  post(url: string, options: { data: object }): Promise<{ status(): number; text(): Promise<string>; headersArray(): Array<{ name: string; value: string }> }>;
}

/** POST through a browser context's request API: its cookie jar keeps the session for the pages. */
export const requestPost =
  (request: RequestContext, origin = ""): PostJson =>
  async (path, body) => {
    const res = await request.post(`${origin}${path}`, { data: body });
    const cookies = res
      .headersArray()
      .filter((h) => h.name.toLowerCase() === "set-cookie")
      .map((h) => h.value.split(";")[0]!);
    return { status: res.status(), body: await res.text(), cookies };
  };
