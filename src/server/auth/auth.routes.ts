import { fromNodeHeaders } from "better-auth/node";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { API_KEY_MESSAGES } from "../../shared/api-keys.ts";
import { AppError } from "../errors.ts";
import type { Auth } from "./auth.ts";
import { authEndpointOf, parseAuthBody } from "./auth-endpoints.ts";
import type { LoginThrottle } from "./login-throttle.ts";
import type { MailThrottle } from "./mail-throttle.ts";

/**
 * The canonical form of the request's address, resolved against PUBLIC_URL rather than the Host
 * header (a malformed Host cannot break it). Dot segments and their percent-encoded spellings are
 * resolved here, once: both our checks and the library see this same pathname.
 */
function canonicalUrl(req: FastifyRequest, publicUrl: string): URL | null {
  try {
    return new URL(req.url, publicUrl);
  } catch {
    return null;
  }
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

/** The library answers errors as `{ code, message }`; the API's one shape is `{ error: { code, message } }`. */
async function inErrorShape(res: Response): Promise<Response> {
  if (res.status < 400) return res;
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { code?: unknown; message?: unknown } | null;
  const code = typeof body?.code === "string" && body.code ? body.code.toLowerCase() : res.status === 404 ? "not_found" : "bad_request";
  const message = typeof body?.message === "string" && body.message ? body.message : res.statusText || "Request failed";
  const headers = new Headers(res.headers);
  headers.set("content-type", "application/json; charset=utf-8");
  return new Response(JSON.stringify({ error: { code, message } }), { status: res.status, headers });
}

export const LOGIN_UNAVAILABLE_MESSAGE = "Sign-in is unavailable for a moment. Please try again in a minute.";

/** A 429 with Retry-After; `what` opens the message ("Too many failed login attempts"). */
function throttled(reply: FastifyReply, waitMs: number, what: string) {
  const seconds = Math.ceil(waitMs / 1000);
  const minutes = Math.ceil(waitMs / 60_000);
  const after = seconds < 60 ? `${seconds} second${seconds === 1 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`;
  reply.header("retry-after", seconds);
  return new AppError(429, "rate_limited", `${what}. Please try again in ${after}.`);
}

/** The library's endpoints that change the signed-in account: a person's session only, never an API key. */
const ACCOUNT_ENDPOINTS = new Set(["/update-user", "/change-password"]);

/** The endpoints that send e-mail, each counted by the mail throttle. */
const SENDS_MAIL = new Set(["/request-password-reset", "/send-verification-email"]);

/** Who signed in and from where (the audit log); awaited, so the entry exists once the session does. */
export type SignedInListener = (user: { id: string; name: string; email: string }, ip: string) => Promise<void>;

/** The user of a successful sign-in's answer, or null. */
async function signedInUser(res: Response): Promise<{ id: string; name: string; email: string } | null> {
  const body = (await res
    .clone()
    .json()
    .catch(() => null)) as { user?: { id?: unknown; name?: unknown; email?: unknown } } | null;
  const user = body?.user;
  return typeof user?.id === "string" ? { id: user.id, name: typeof user.name === "string" ? user.name : "", email: typeof user.email === "string" ? user.email : "" } : null;
}

export const authRoutes: FastifyPluginAsync<{ auth: Auth; throttle: LoginThrottle; mailThrottle: MailThrottle; publicUrl: string; onSignedIn?: SignedInListener }> = async (
  app,
  { auth, throttle, mailThrottle, publicUrl, onSignedIn },
) => {
  app.route({
    method: ["GET", "POST"],
    url: "/api/auth/*",
    handler: async (req, reply) => {
      const url = canonicalUrl(req, publicUrl);
      const endpoint = url ? authEndpointOf(req.method, url.pathname) : null;
      // Only the exact canonical spelling of an endpoint we use reaches the library.
      if (!url || !endpoint || url.pathname !== req.url.split("?")[0]) throw new AppError(404, "not_found", "Not found");
      // A key is no session here: said in the API's words (403), not the library's "unauthorized".
      if (ACCOUNT_ENDPOINTS.has(endpoint) && /^Bearer\s/i.test(req.headers.authorization ?? "")) throw new AppError(403, "session_required", API_KEY_MESSAGES.sessionOnly);
      let body: unknown;
      if (req.method === "POST") {
        const parsed = parseAuthBody(endpoint, req.body);
        if (!parsed.ok) throw new AppError(400, "validation_error", parsed.message);
        body = parsed.body;
      }

      const isSignIn = endpoint === "/sign-in/email";
      const attempt = { email: isSignIn ? (body as { email: string }).email : "", ip: req.ip };
      if (isSignIn) {
        // Fails closed: while the counters cannot be read, guesses would go uncounted.
        const waitMs = await throttle.retryAfterMs(attempt).catch((err: unknown) => {
          req.log.error({ err }, "login throttle store unreachable; sign-in refused");
          reply.header("retry-after", 60);
          throw new AppError(503, "login_unavailable", LOGIN_UNAVAILABLE_MESSAGE);
        });
        if (waitMs > 0) throw throttled(reply, waitMs, "Too many failed login attempts");
      }
      if (SENDS_MAIL.has(endpoint)) {
        // Fails open: a store outage must not stop password recovery; the SMTP server still limits.
        const waitMs = await mailThrottle.take({ email: (body as { email: string }).email, ip: req.ip }).catch((err: unknown) => {
          req.log.error({ err }, "mail throttle store unreachable; e-mail request not counted");
          return 0;
        });
        if (waitMs > 0) throw throttled(reply, waitMs, "Too many e-mail requests");
      }

      const request = new Request(url, {
        method: req.method,
        headers: fromNodeHeaders(req.headers),
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      // The body forwarded is the checked one, re-encoded: the client's framing no longer applies.
      request.headers.delete("content-length");
      if (body !== undefined) request.headers.set("content-type", "application/json");
      let res = await auth.handler(request);
      if (isSignIn) {
        // The library has answered; a store failing now costs one uncounted attempt, not the answer.
        const recorded = res.status === 401 ? throttle.recordFailure(attempt) : res.ok ? throttle.recordSuccess(attempt) : null;
        await recorded?.catch((err: unknown) => req.log.error({ err }, "login throttle store unreachable; attempt not counted"));
        const user = res.ok && onSignedIn ? await signedInUser(res) : null;
        if (user) await onSignedIn!(user, req.ip).catch((err: unknown) => req.log.error({ err }, "sign-in could not be audited"));
      }
      return sendWebResponse(reply, await inErrorShape(res));
    },
  });
};
