/**
 * The key-management page's sessions (page.ts): signing in with an admin token makes one, and the
 * browser holds only its id, never the token. The id is 32 random bytes (base64url, 43
 * characters); the server keeps the id's SHA-256, not the id, mapped to the admin token it was
 * made with and when it was made and last used. So neither a heap snapshot nor a log of the server
 * holds anything that signs in, and the token itself never leaves the sign-in form.
 *
 * A session ends when unused for `idleMs`, `lifetimeMs` after it was made however much it is used,
 * at sign-out, or (page.ts) once its admin token is found revoked. They live in this process's
 * memory only: a restart ends every one, and the operators sign in again; several servers behind
 * one proxy each know only their own (the admin listener is one server's, on its own port).
 *
 * Bounded: at most `most` at once, the least recently used ending first when one more is made, and
 * those past their time are swept when one is made and at most once per idle time otherwise.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';

export interface SessionLimits {
  /** Unused this long, a session ends. */
  idleMs: number;
  /** This long after its sign-in, a session ends however much it is used. */
  lifetimeMs: number;
  /** Sessions at once; the least recently used ends when one more is made. */
  most: number;
}

/** Sessions at once: operators are a handful, each with a browser or two. */
export const MOST_SESSIONS = 1000;

/** What the server keeps of a session. */
export interface Session {
  /** The SHA-256 of its id (base64url): what a form token is bound to (page-csrf.ts). */
  readonly digest: string;
  /** The admin token it was signed in with (`adm_...`). */
  readonly tokenId: string;
  readonly created: number;
  lastSeen: number;
}

/** What a session id looks like: 32 bytes, base64url. Anything else is never hashed nor looked up. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

function digestOf(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

export class AdminSessions {
  /** By digest, least recently used first (a used session is moved to the end). */
  private readonly live = new Map<string, Session>();
  private sweptAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly clock: Clock,
    private readonly limits: SessionLimits,
  ) {}

  /** Make a session for an admin token; its id, for the cookie, is returned once and kept nowhere. */
  open(tokenId: string): string {
    const now = this.clock.now();
    this.sweep(now);
    while (this.live.size >= this.limits.most) this.live.delete(this.live.keys().next().value!);
    const id = randomBytes(32).toString('base64url');
    const digest = digestOf(id);
    this.live.set(digest, { digest, tokenId, created: now, lastSeen: now });
    return id;
  }

  /**
   * The live session an id names, used now (its idle time starts again); null when the id is not
   * one, or its session ended (and it is forgotten now if its time has passed).
   */
  use(id: string | null): Session | null {
    if (id === null || !SESSION_ID_PATTERN.test(id)) return null;
    const now = this.clock.now();
    if (now - this.sweptAt >= this.limits.idleMs) this.sweep(now);
    const digest = digestOf(id);
    const session = this.live.get(digest);
    if (session === undefined) return null;
    this.live.delete(digest);
    if (this.ended(session, now)) return null;
    session.lastSeen = now;
    this.live.set(digest, session);
    return session;
  }

  /** End the session an id names (sign-out): the id never signs in again. */
  end(id: string | null): void {
    if (id !== null && SESSION_ID_PATTERN.test(id)) this.live.delete(digestOf(id));
  }

  /** End every session of an admin token (found revoked). */
  endToken(tokenId: string): void {
    for (const [digest, session] of this.live) if (session.tokenId === tokenId) this.live.delete(digest);
  }

  /** Sessions held now (live, or past their time and not swept yet). */
  get size(): number {
    return this.live.size;
  }

  private ended(session: Session, now: number): boolean {
    return now - session.lastSeen >= this.limits.idleMs || now - session.created >= this.limits.lifetimeMs;
  }

  private sweep(now: number): void {
    this.sweptAt = now;
    for (const [digest, session] of this.live) if (this.ended(session, now)) this.live.delete(digest);
  }
}
