import type { FastifyReply, FastifyRequest } from "fastify";
import type { SessionUser } from "../../shared/auth.ts";
import { can, keyMay, PERMISSIONS, type Permission } from "../../shared/roles.ts";
import type { KeyHolder } from "../modules/api-keys/api-keys.service.ts";
import type { Actor, TeamService } from "../modules/team/team.service.ts";
import { API_KEY_MESSAGES, API_KEY_REQUESTS_PER_MINUTE } from "../../shared/api-keys.ts";
import { AppError, unauthorized } from "../errors.ts";
import { counterKey, type CounterStore } from "../shared-state/index.ts";
import type { Auth } from "./auth.ts";
import { BEFORE_JOINING } from "./route-permissions.ts";
import { TEAM_MESSAGES } from "../../shared/team.ts";
import { fromNodeHeaders } from "better-auth/node";

declare module "fastify" {
  interface FastifyRequest {
    /** The signed-in person (set by `requireUser` for a session only: no route a key may call reads it). */
    user: SessionUser;
    /** Who acts, in which organisation, with which role (set by `requireUser` on every authenticated route). */
    actor: Actor;
    /** The id of the session row the request came with (set by `requireUser`): sockets re-check it. */
    sessionId: string;
    /** Set when the request authenticated with `Authorization: Bearer <API key>` instead of a session. */
    apiKey?: { id: string; name: string; creatorName: string };
  }
  interface FastifyContextConfig {
    /** What the route needs (src/server/auth/route-permissions.ts), checked against the actor's role. */
    permission?: Permission;
  }
}

/** How a Bearer token becomes the member it acts for (the api-keys module), and the shared rate-limit counters. */
export interface BearerAuth {
  authenticate(key: string): Promise<KeyHolder | null>;
  counters: CounterStore;
}

const invalidKey = () => new AppError(401, "invalid_api_key", API_KEY_MESSAGES.invalid);
const keyInWrongPlace = () => new AppError(401, "invalid_api_key", API_KEY_MESSAGES.wrongPlace);

/** Where clients often put a key by mistake: these query parameters, or an X-API-Key header. */
const KEY_QUERY_NAMES = new Set(["api_key", "apikey", "key", "token", "access_token"]);
const KEY_SHAPE = /^sk_[0-9A-Za-z]{32,}$/;

/**
 * A key sent somewhere but the Authorization header (or there without `Bearer`): refused in
 * words that say where it goes, rather than as a missing sign-in.
 */
function sentKeyElsewhere(req: FastifyRequest): boolean {
  const authorization = req.headers.authorization;
  if (authorization) return !/^Bearer\s/i.test(authorization) && KEY_SHAPE.test(authorization.replace(/^\S+\s+/, "").trim());
  if (req.headers["x-api-key"]) return true;
  const query = req.url.indexOf("?");
  if (query < 0) return false;
  for (const [name, value] of new URLSearchParams(req.url.slice(query + 1))) if (KEY_QUERY_NAMES.has(name.toLowerCase()) && KEY_SHAPE.test(value)) return true;
  return false;
}

/**
 * The API-key branch of authentication: no cookie is read or set and no Origin is asked for (a
 * server calls, not a browser). The key and its creator's membership are read from the database
 * on every request (nothing cached in the process), so a revocation, a demotion or the creator's
 * removal holds at once on every instance; counted per key in the shared counters.
 */
async function authenticateBearer(bearer: BearerAuth, header: string, req: FastifyRequest, reply: FastifyReply): Promise<void> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const found = match?.[1] ? await bearer.authenticate(match[1]) : null;
  if (!found) throw invalidKey();
  // What no key may do whatever its creator's role (keyMay), and sockets (they re-check a session).
  const permission = req.routeOptions.config.permission;
  if ((permission && !keyMay(permission)) || req.headers.upgrade?.toLowerCase() === "websocket") {
    throw new AppError(403, "session_required", API_KEY_MESSAGES.sessionOnly);
  }
  const window = await bearer.counters.increment(counterKey.rateLimit("api-key", found.keyId), 60_000).catch(() => null);
  if (window) {
    // On every answer to a key, not only its 429: a client can slow down before it is refused.
    reply.header("ratelimit-limit", String(API_KEY_REQUESTS_PER_MINUTE));
    reply.header("ratelimit-remaining", String(Math.max(0, API_KEY_REQUESTS_PER_MINUTE - window.count)));
    reply.header("ratelimit-reset", String(Math.max(1, Math.ceil(window.resetInMs / 1000))));
  }
  if (window && window.count > API_KEY_REQUESTS_PER_MINUTE) {
    const seconds = Math.max(1, Math.ceil(window.resetInMs / 1000));
    reply.header("retry-after", String(seconds));
    throw new AppError(429, "rate_limited", `Too many requests with this API key. Please try again in ${seconds} seconds.`);
  }
  // A key acts for its creator, with their role as it is now: never more than they may do.
  req.actor = { userId: found.userId, organizationId: found.organizationId, role: found.role, via: "api_key" };
  req.sessionId = "";
  req.apiKey = { id: found.keyId, name: found.keyName, creatorName: found.userName };
}

/** Reads the session cookie; forwards the refreshed cookie when the library slides the expiry. */
async function readSignedIn(
  auth: Auth,
  req: FastifyRequest,
  reply?: FastifyReply,
): Promise<{ user: SessionUser; sessionId: string; activeOrganizationId: string | null } | null> {
  const { headers, response } = await auth.api.getSession({ headers: fromNodeHeaders(req.headers), returnHeaders: true });
  const cookies = headers.getSetCookie();
  if (reply && cookies.length) reply.header("set-cookie", cookies);
  if (!response) return null;
  const { id, name, email } = response.user;
  const active = (response.session as { activeOrganizationId?: string | null }).activeOrganizationId ?? null;
  return { user: { id, name, email }, sessionId: response.session.id, activeOrganizationId: active };
}

export async function readSession(auth: Auth, req: FastifyRequest, reply?: FastifyReply): Promise<SessionUser | null> {
  return (await readSignedIn(auth, req, reply))?.user ?? null;
}

/**
 * Authenticates (a session cookie, or a Bearer API key), finds the organisation the request works
 * in with the actor's role there, and refuses what that role may not do: 403 in the user's words.
 */
export function requireUser(auth: Auth, team: Pick<TeamService, "resolve">, bearer?: BearerAuth) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const authorization = req.headers.authorization;
    if (bearer && sentKeyElsewhere(req)) throw keyInWrongPlace();
    if (bearer && authorization) {
      await authenticateBearer(bearer, authorization, req, reply);
    } else {
      const signedIn = await readSignedIn(auth, req, reply);
      if (!signedIn) throw unauthorized();
      req.user = signedIn.user;
      req.sessionId = signedIn.sessionId;
      const membership = await team.resolve(signedIn.user, { id: signedIn.sessionId, activeOrganizationId: signedIn.activeOrganizationId });
      if (!membership) {
        if (!BEFORE_JOINING.has(`${req.method} ${req.routeOptions.url}`)) throw new AppError(403, "invitation_pending", TEAM_MESSAGES.invitationPending);
        // Acting in no organisation: the only route let through works on the person, not a team.
        req.actor = { userId: signedIn.user.id, organizationId: "", role: "viewer", via: "session" };
      } else {
        req.actor = { userId: signedIn.user.id, organizationId: membership.organizationId, role: membership.role, via: "session" };
      }
    }
    const permission = req.routeOptions.config.permission;
    // Unreachable for a registered route (the table is checked at start-up); refuse rather than allow.
    if (!permission) throw new AppError(403, "forbidden", PERMISSIONS.owner.message);
    if (!can(req.actor.role, permission)) throw new AppError(403, "forbidden", PERMISSIONS[permission].message);
  };
}
