/**
 * Bytes of request bodies held in memory, bounded server-wide and per scope (whose requests
 * count together). A body's bytes are reserved before they are read, so a client that cannot
 * have them is refused before it costs anything; a reservation grows as a body without a
 * Content-Length arrives, and is released once, whatever ends its request.
 */

export interface BodyBudgetLimits {
  /** Bytes of bodies in memory on the whole server. */
  totalBytes: number;
  /** Bytes of bodies in memory for one scope. */
  perScopeBytes: number;
}

/** Which budget refused: the scope's own, or the server's. */
export type BudgetRefusal = 'scope' | 'server';

/** Bytes held for one body; grow it as the body needs more, release it when its request ends. */
export interface BodyReservation {
  readonly bytes: number;
  /** Hold `more` bytes too; the refusal (nothing held) when either budget cannot give them. */
  grow(more: number): BudgetRefusal | null;
  /** Give every byte back; later calls do nothing. */
  release(): void;
}

export class BodyBudget {
  private total = 0;
  private readonly scopes = new Map<string, number>();

  constructor(readonly limits: BodyBudgetLimits) {}

  /** Bytes held on the whole server now. */
  inFlight(): number {
    return this.total;
  }

  /** Bytes held for one scope now. */
  inScope(scope: string): number {
    return this.scopes.get(scope) ?? 0;
  }

  /** Which budget `bytes` more for `scope` would exceed, or null when both can give them. */
  private refusal(scope: string, bytes: number): BudgetRefusal | null {
    if (this.inScope(scope) + bytes > this.limits.perScopeBytes) return 'scope';
    if (this.total + bytes > this.limits.totalBytes) return 'server';
    return null;
  }

  private take(scope: string, bytes: number): void {
    this.total += bytes;
    this.scopes.set(scope, this.inScope(scope) + bytes);
  }

  private give(scope: string, bytes: number): void {
    this.total -= bytes;
    const left = this.inScope(scope) - bytes;
    // An idle scope leaves no entry behind: the map holds only scopes with bodies in flight.
    if (left > 0) this.scopes.set(scope, left);
    else this.scopes.delete(scope);
  }

  /** Hold `bytes` for a body of `scope`, or say which budget cannot give them. */
  reserve(scope: string, bytes: number): BodyReservation | BudgetRefusal {
    const refused = this.refusal(scope, bytes);
    if (refused) return refused;
    this.take(scope, bytes);
    let held = bytes;
    let released = false;
    return {
      get bytes() {
        return held;
      },
      grow: (more: number) => {
        if (released) return 'server';
        const refusedMore = this.refusal(scope, more);
        if (refusedMore) return refusedMore;
        this.take(scope, more);
        held += more;
        return null;
      },
      release: () => {
        if (released) return;
        released = true;
        this.give(scope, held);
      },
    };
  }
}
