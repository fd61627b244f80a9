/**
 * The access log: one JSON line per request on stdout. Lines of one event-loop turn are
 * written together, so logging costs one write per turn rather than one per request. It
 * never holds a key (only the key's public id) nor the query string of a CritPt post.
 */

export interface AccessEntry {
  time: string;
  method: string;
  /** The route id, or `unmatched`. */
  route: string;
  path: string;
  /** Query string of data routes (never of CritPt posts); omitted when empty. */
  query?: string;
  status: number;
  bytes: number;
  ms: number;
  /** The public id of the key (`key_…`), when one was valid. */
  key?: string;
}

export class AccessLog {
  private pending: string[] = [];
  private scheduled = false;

  constructor(private readonly write: (text: string) => void) {}

  record(entry: AccessEntry): void {
    this.pending.push(JSON.stringify(entry));
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = `${this.pending.join('\n')}\n`;
    this.pending = [];
    this.write(text);
  }
}
