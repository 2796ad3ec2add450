import type { FastifyReply, FastifyRequest } from "fastify";
import type { SessionUser } from "../../shared/auth.ts";
import { unauthorized } from "../errors.ts";
import type { Auth } from "./auth.ts";
import { fromNodeHeaders } from "better-auth/node";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `requireUser` on every authenticated route. */
    user: SessionUser;
    /** The id of the session row the request came with (set by `requireUser`): sockets re-check it. */
    sessionId: string;
  }
}

/** Reads the session cookie; forwards the refreshed cookie when the library slides the expiry. */
async function readSignedIn(auth: Auth, req: FastifyRequest, reply?: FastifyReply): Promise<{ user: SessionUser; sessionId: string } | null> {
  const { headers, response } = await auth.api.getSession({ headers: fromNodeHeaders(req.headers), returnHeaders: true });
  const cookies = headers.getSetCookie();
  if (reply && cookies.length) reply.header("set-cookie", cookies);
  if (!response) return null;
  const { id, name, email } = response.user;
  return { user: { id, name, email }, sessionId: response.session.id };
}

export async function readSession(auth: Auth, req: FastifyRequest, reply?: FastifyReply): Promise<SessionUser | null> {
  return (await readSignedIn(auth, req, reply))?.user ?? null;
}

export function requireUser(auth: Auth) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const signedIn = await readSignedIn(auth, req, reply);
    if (!signedIn) throw unauthorized();
    req.user = signedIn.user;
    req.sessionId = signedIn.sessionId;
  };
}
