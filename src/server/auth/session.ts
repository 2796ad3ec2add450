import type { FastifyReply, FastifyRequest } from "fastify";
import type { SessionUser } from "../../shared/auth.ts";
import { unauthorized } from "../errors.ts";
import type { Auth } from "./auth.ts";
import { fromNodeHeaders } from "better-auth/node";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireUser` on every authenticated route. */
    user: SessionUser;
  }
}

/** Reads the session cookie; forwards the refreshed cookie when the library slides the expiry. */
export async function readSession(auth: Auth, req: FastifyRequest, reply?: FastifyReply): Promise<SessionUser | null> {
  const { headers, response } = await auth.api.getSession({ headers: fromNodeHeaders(req.headers), returnHeaders: true });
  const cookies = headers.getSetCookie();
  if (reply && cookies.length) reply.header("set-cookie", cookies);
  if (!response) return null;
  const { id, name, email } = response.user;
  return { id, name, email };
}

export function requireUser(auth: Auth) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const user = await readSession(auth, req, reply);
    if (!user) throw unauthorized();
    req.user = user;
  };
}
