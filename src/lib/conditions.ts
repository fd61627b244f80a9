/**
 * What keeps the server from answering correctly right now (a corrupt build, an unreadable key
 * store, a Redis that refuses writes): named conditions that /readyz reports while they last.
 * Each is logged once when it begins and once when it ends, however many requests meet it, so
 * a bad hour is two log lines, not one per request. The same bookkeeping holds the server's
 * warnings (a Redis that keeps nothing on disk): reported by /readyz too, but ready.
 */
export interface ConditionLog {
  begins: (line: string) => void;
  ends: (line: string) => void;
}

export class Conditions {
  /** Active conditions by name: the reason /readyz gives. */
  private readonly active = new Map<string, string>();

  /** `begins`: the word a beginning is logged with (`warning` for warnings). */
  constructor(
    private readonly log: ConditionLog,
    private readonly begins = 'not ready',
  ) {}

  /** The condition holds: logged if it did not hold before; its reason may be updated silently. */
  begin(name: string, reason: string): void {
    if (!this.active.has(name)) this.log.begins(`${this.begins}: ${reason}`);
    this.active.set(name, reason);
  }

  /**
   * Begin, end or change a condition to `reason` (null: it does not hold): a changed reason is
   * logged as the old one ending and the new one beginning, for what is reported whole each time
   * (a warning whose text names what is wrong now).
   */
  report(name: string, reason: string | null): void {
    if (reason !== null && this.active.get(name) === reason) return;
    this.end(name);
    if (reason !== null) this.begin(name, reason);
  }

  /** The condition no longer holds: logged if it did. */
  end(name: string): void {
    const reason = this.active.get(name);
    if (reason === undefined) return;
    this.active.delete(name);
    this.log.ends(`no longer: ${reason}`);
  }

  has(name: string): boolean {
    return this.active.has(name);
  }

  /** The reason a condition holds for, or undefined. */
  reason(name: string): string | undefined {
    return this.active.get(name);
  }

  /** The reasons of every condition that holds, in the order they began. */
  reasons(): string[] {
    return [...this.active.values()];
  }
}
