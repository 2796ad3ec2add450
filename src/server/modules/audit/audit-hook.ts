/**
 * The one place HTTP actions reach the audit log: hooks on the authenticated scope (app.ts) that
 * look the route up in audit-routes.ts. The entry is written in `onSend`, before the answer
 * leaves, so a client that saw its change succeed finds it in the log; a failed request (status
 * ≥ 400) writes nothing. A write that fails is logged and the answer still goes out: the action
 * has happened either way.
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { apiKeyActorName, type AuditAction, type AuditTargetType } from "../../../shared/audit.ts";
import type { SupervisorAction } from "../../../shared/calls.ts";
import { auditRuleOf, type AuditSeen } from "./audit-routes.ts";
import type { AuditActor, AuditService } from "./audit.service.ts";

/** Reads a target's current name by its id in an organisation (the owning module's service), or null. */
export type AuditNameResolver = (organizationId: string, id: string) => Promise<string | null>;

export interface AuditHookDeps {
  audit: AuditService;
  /** Names read before a deletion, per target type. */
  names: Partial<Record<AuditTargetType, AuditNameResolver>>;
}

const str = (v: unknown): string | null => (typeof v === "string" || typeof v === "number" ? String(v) : null);
const record = (v: unknown): Record<string, unknown> => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function jsonOf(payload: unknown, reply: FastifyReply): Record<string, unknown> | null {
  if (typeof payload !== "string" || !String(reply.getHeader("content-type") ?? "").includes("json")) return null;
  try {
    return record(JSON.parse(payload));
  } catch {
    return null;
  }
}

export function auditHooks({ audit, names }: AuditHookDeps) {
  const namesBefore = new WeakMap<FastifyRequest, string | null>();

  /** A key's entries name its creator (the actor) and the key, as both read when the request came. */
  function actorOf(req: FastifyRequest): AuditActor {
    if (req.actor.via === "api_key" && req.apiKey) {
      return { userId: req.actor.userId, name: apiKeyActorName(req.apiKey.creatorName, req.apiKey.name), via: "api_key", apiKeyId: req.apiKey.id };
    }
    return { userId: req.actor.userId, name: req.user.name.trim() || req.user.email, via: "session" };
  }

  return {
    /** Reads the name of what a request is about to delete (after the permission check). */
    preHandler: async (req: FastifyRequest) => {
      const rule = auditRuleOf(req.method, req.routeOptions.url);
      if (!rule?.nameBefore || !req.actor) return;
      const id = str(record(req.params)[rule.target === "member" ? "userId" : rule.target === "knowledge_document" ? "docId" : "id"]);
      const resolve = names[rule.target];
      if (!id || !resolve) return;
      namesBefore.set(req, await resolve(req.actor.organizationId, id).catch(() => null));
    },

    onSend: async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const rule = auditRuleOf(req.method, req.routeOptions.url);
      // A stored answer given again for a retried Idempotency-Key did nothing: nothing to record.
      if (!rule || req.idempotency?.replayed || reply.statusCode >= 400 || (rule.status !== undefined && reply.statusCode !== rule.status) || !req.actor) return payload;
      const seen: AuditSeen = {
        params: record(req.params) as Record<string, string>,
        body: record(req.body),
        query: record(req.query),
        response: jsonOf(payload, reply),
        organizationId: req.actor.organizationId,
        userId: req.actor.userId,
      };
      const id = str(rule.id?.(seen));
      let name = str(rule.name?.(seen)) ?? namesBefore.get(req) ?? null;
      if (rule.member && id) name = await audit.userName(id);
      await audit.record({
        organizationId: str(rule.organization?.(seen)) ?? req.actor.organizationId,
        actor: actorOf(req),
        action: typeof rule.action === "function" ? rule.action(seen) : rule.action,
        target: { type: rule.target, id, name },
        details: rule.details?.(seen),
        ip: req.ip,
      });
      return payload;
    },
  };
}

/** The live board's actions the log keeps; stopping to listen and speaking while in control are not decisions. */
const LIVE_ACTIONS: Partial<Record<SupervisorAction, AuditAction>> = {
  listen: "live.listened",
  guide: "live.guided",
  take_over: "live.took_over",
  hand_back: "live.handed_back",
  end_call: "live.ended",
};

/** For the watch socket (modules/live): records a supervisor's action on a call. */
export function recordLiveAction(audit: AuditService) {
  return (req: FastifyRequest, callId: string, action: SupervisorAction): void => {
    const mapped = LIVE_ACTIONS[action];
    if (!mapped) return;
    void audit.record({
      organizationId: req.actor.organizationId,
      actor: { userId: req.actor.userId, name: req.user.name.trim() || req.user.email, via: "session" },
      action: mapped,
      target: { type: "call", id: callId },
      ip: req.ip,
    });
  };
}

/**
 * For the auth routes: a successful sign-in, recorded in every organisation the person belongs to
 * (each one's admins see who came in to work on it).
 */
export function recordSignIn(audit: AuditService, organizationsOf: (userId: string) => Promise<string[]>) {
  return async (user: { id: string; name: string; email: string }, ip: string): Promise<void> => {
    const organizations = await organizationsOf(user.id).catch(() => []);
    const actor: AuditActor = { userId: user.id, name: user.name.trim() || user.email, via: "session" };
    await Promise.all(organizations.map((organizationId) => audit.record({ organizationId, actor, action: "auth.signed_in", target: { type: "user", id: user.id, name: user.email }, ip })));
  };
}
