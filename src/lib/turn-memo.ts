/**
 * Values computed from a request's text (an API key's hash), kept until the end of the event-loop
 * turn that computed them: the requests one turn reads often carry the same text (one client's
 * connections), and the value is computed once for them. Forgotten at the turn's end, so what was
 * read from requests (plain API keys) is held no longer than the requests themselves.
 */
export class TurnMemo<V extends NonNullable<unknown> | null> {
  private readonly values = new Map<string, V>();
  private readonly forget = (): void => this.values.clear();

  constructor(private readonly compute: (from: string) => V) {}

  get(from: string): V {
    let value = this.values.get(from);
    if (value === undefined) {
      if (this.values.size === 0) setImmediate(this.forget);
      this.values.set(from, (value = this.compute(from)));
    }
    return value;
  }

  /** Values held now: none once the turn that computed them has ended. */
  get size(): number {
    return this.values.size;
  }
}
