/**
 * Long-lived sockets opened with a sign-in session (the live board, a watched call, a test call)
 * are checked at the upgrade only, so each is held here and re-checked against the shared
 * database every `periodMs`: a session signed out, revoked ("sign out other sessions" on a
 * password change, a reset), expired or deleted with its account closes its sockets with 4401
 * on whichever instance holds them. One query per period covers every socket of the instance.
 *
 * `SessionCheck` is the one seam that decides whether a holder may keep its sockets: its
 * session still live, and its membership still giving the role the socket needs (a member removed
 * or demoted loses the board at once).
 */
import { and, gt, inArray, sql } from "drizzle-orm";
import type { FastifyBaseLogger, FastifyRequest } from "fastify";
import WebSocket from "ws";
import { SESSION_ENDED_CLOSE } from "../../shared/auth.ts";
import { can, type Permission, type Role } from "../../shared/roles.ts";
import type { Db } from "../db/client.ts";
import { member, session } from "../db/schema.ts";

export interface SocketHolder {
  sessionId: string;
  userId: string;
  organizationId: string;
  /** What the socket needs of the holder's role (its route's permission). */
  permission: Permission;
}

/** The holder of a socket opened by an authenticated route (after `requireUser`). */
export function holderOf(req: FastifyRequest): SocketHolder {
  return {
    sessionId: req.sessionId,
    userId: req.actor.userId,
    organizationId: req.actor.organizationId,
    permission: req.routeOptions.config.permission ?? "owner",
  };
}

/** A holder's identity in a check's answer: one session may hold sockets in two organisations. */
export const holderKey = (h: SocketHolder) => `${h.sessionId} ${h.organizationId} ${h.permission}`;

/** Of the holders given, the keys (`holderKey`) of those that may keep their sockets. */
export type SessionCheck = (holders: ReadonlyArray<SocketHolder>) => Promise<Set<string>>;

/** Sessions still live whose member still has the role (two queries per 500 sessions or users). */
export function liveSessionsCheck(db: Db): SessionCheck {
  return async (holders) => {
    const ids = [...new Set(holders.map((h) => h.sessionId))];
    const users = [...new Set(holders.map((h) => h.userId))];
    const alive = new Set<string>();
    for (let at = 0; at < ids.length; at += 500) {
      const rows = await db
        .select({ id: session.id })
        .from(session)
        .where(and(inArray(session.id, ids.slice(at, at + 500)), gt(session.expiresAt, sql`now()`)));
      for (const row of rows) alive.add(row.id);
    }
    const roles = new Map<string, Role>();
    for (let at = 0; at < users.length; at += 500) {
      const rows = await db
        .select({ userId: member.userId, organizationId: member.organizationId, role: member.role })
        .from(member)
        .where(inArray(member.userId, users.slice(at, at + 500)));
      for (const row of rows) roles.set(`${row.userId} ${row.organizationId}`, row.role);
    }
    const allowed = new Set<string>();
    for (const h of holders) {
      const role = roles.get(`${h.userId} ${h.organizationId}`);
      if (alive.has(h.sessionId) && role && can(role, h.permission)) allowed.add(holderKey(h));
    }
    return allowed;
  };
}

interface Held extends SocketHolder {
  socket: WebSocket;
  end: () => void;
}

/** A socket told to close that does not answer the close frame is cut off after this. */
const CLOSE_GRACE_MS = 1000;
export const SESSION_RECHECK_MS = 2000;

export class SocketSessions {
  private readonly held = new Set<Held>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly check: SessionCheck,
    private readonly log: FastifyBaseLogger,
    private readonly periodMs = SESSION_RECHECK_MS,
  ) {}

  /**
   * Re-checks `socket`'s session until it closes. `end` stops what the socket can still do
   * (commands, microphone) and closes it with SESSION_ENDED_CLOSE; by default only the close.
   */
  hold(holder: SocketHolder, socket: WebSocket, end?: () => void): void {
    const entry: Held = {
      ...holder,
      socket,
      end: end ?? (() => socket.close(SESSION_ENDED_CLOSE.code, SESSION_ENDED_CLOSE.reason)),
    };
    this.held.add(entry);
    socket.once("close", () => this.held.delete(entry));
    if (!this.timer) {
      this.timer = setInterval(() => void this.recheck(), this.periodMs);
      this.timer.unref();
    }
  }

  get size(): number {
    return this.held.size;
  }

  /** One pass over every held socket; concurrent calls share the pass in flight. */
  recheck(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<void> {
    if (this.held.size === 0) {
      this.stop();
      return;
    }
    const entries = [...this.held];
    let allowed: Set<string>;
    try {
      allowed = await this.check(entries);
    } catch (err) {
      // A database hiccup must not drop every supervisor: the next pass decides.
      this.log.warn({ err }, "socket session re-check failed; sockets kept until the next pass");
      return;
    }
    for (const entry of entries) {
      if (allowed.has(holderKey(entry)) || !this.held.has(entry)) continue;
      this.held.delete(entry);
      entry.end();
      const { socket } = entry;
      setTimeout(() => {
        if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
      }, CLOSE_GRACE_MS).unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
