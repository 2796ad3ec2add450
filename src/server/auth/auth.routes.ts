import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Auth } from "./auth.ts";
import type { LoginThrottle } from "./login-throttle.ts";

/** Turns a Fastify request into the Fetch `Request` that better-auth's handler expects. */
export function toWebRequest(req: FastifyRequest): Request {
  const url = new URL(req.url, `${req.protocol}://${req.headers.host ?? "localhost"}`);
  const headers = toWebHeaders(req);
  const hasBody = req.method !== "GET" && req.method !== "HEAD" && req.body !== undefined;
  return new Request(url, { method: req.method, headers, body: hasBody ? JSON.stringify(req.body) : undefined });
}

export function toWebHeaders(req: FastifyRequest): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(key, v);
  }
  return headers;
}

export async function sendWebResponse(reply: FastifyReply, res: Response) {
  reply.status(res.status);
  res.headers.forEach((value, key) => {
    if (key !== "set-cookie" && key !== "content-length") reply.header(key, value);
  });
  const cookies = res.headers.getSetCookie();
  if (cookies.length) reply.header("set-cookie", cookies);
  return reply.send(res.body ? Buffer.from(await res.arrayBuffer()) : null);
}

const SIGN_IN_PATH = "/api/auth/sign-in/email";
const SIGN_UP_PATH = "/api/auth/sign-up/email";

/** Sign-up leads to the login page (spec §2), so the session the library opens is revoked at once. */
async function withoutSignUpSession(auth: Auth, res: Response): Promise<Response> {
  if (!res.ok) return res;
  const body = (await res.clone().json()) as { token?: string | null; user?: unknown };
  if (!body.token) return res;
  const headers = new Headers({ "content-type": "application/json" });
  await (await auth.$context).internalAdapter.deleteSession(body.token);
  return new Response(JSON.stringify({ token: null, user: body.user }), { status: res.status, headers });
}

export const authRoutes: FastifyPluginAsync<{ auth: Auth; throttle: LoginThrottle }> = async (app, { auth, throttle }) => {
  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    handler: async (req, reply) => {
      const isSignIn = req.method === "POST" && req.url.split("?")[0] === SIGN_IN_PATH;
      const attempt = { email: String((req.body as { email?: unknown } | undefined)?.email ?? ""), ip: req.ip };
      if (isSignIn) {
        const waitMs = throttle.retryAfterMs(attempt);
        if (waitMs > 0) {
          const minutes = Math.ceil(waitMs / 60_000);
          reply.header("retry-after", Math.ceil(waitMs / 1000));
          return reply.status(429).send({
            code: "TOO_MANY_ATTEMPTS",
            message: `Too many failed login attempts. Please try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          });
        }
      }
      const path = req.url.split("?")[0];
      let res = await auth.handler(toWebRequest(req));
      if (req.method === "POST" && path === SIGN_UP_PATH) res = await withoutSignUpSession(auth, res);
      if (isSignIn) {
        if (res.status === 401) throttle.recordFailure(attempt);
        else if (res.ok) throttle.reset(attempt.email);
      }
      return sendWebResponse(reply, res);
    },
  });
};
