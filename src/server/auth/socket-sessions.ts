/**
 * Long-lived sockets opened with a sign-in session (the live board, a watched call, a test call)
 * are checked at the upgrade only, so each is held here and re-checked against the shared
 * database every `periodMs`: a session signed out, revoked ("sign out other sessions" on a
 * password change, a reset), expired or deleted with its account closes its sockets with 4401
 * on whichever instance holds them. One query per period covers every socket of the instance.
 *
 * `SessionCheck` is the one seam that decides whether a holder may keep its sockets; a rule
 * beyond the session itself (e.g. a membership) belongs there.
 */
import { and, gt, inArray, sql } from "drizzle-orm";
import type { FastifyBaseLogger } from "fastify";
import WebSocket from "ws";
import { SESSION_ENDED_CLOSE } from "../../shared/auth.ts";
import type { Db } from "../db/client.ts";
import { session } from "../db/schema.ts";

export interface SocketHolder {
  sessionId: string;
  userId: string;
}

/** Of the holders given, the session ids that may keep their sockets. */
export type SessionCheck = (holders: ReadonlyArray<SocketHolder>) => Promise<Set<string>>;

/** Sessions that still exist and have not expired (one query per 500 distinct sessions). */
export function liveSessionsCheck(db: Db): SessionCheck {
  return async (holders) => {
    const ids = [...new Set(holders.map((h) => h.sessionId))];
    const alive = new Set<string>();
    for (let at = 0; at < ids.length; at += 500) {
      const rows = await db
        .select({ id: session.id })
        .from(session)
        .where(and(inArray(session.id, ids.slice(at, at + 500)), gt(session.expiresAt, sql`now()`)));
      for (const row of rows) alive.add(row.id);
    }
    return alive;
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
      sessionId: holder.sessionId,
      userId: holder.userId,
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
      if (allowed.has(entry.sessionId) || !this.held.has(entry)) continue;
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
