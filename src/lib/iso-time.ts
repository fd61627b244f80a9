/**
 * A time in milliseconds as ISO 8601 text (`2026-11-21T12:00:00.000Z`), the last one remembered.
 * `new Date(ms).toISOString()` costs 0.7 to 1 µs, a third of an access log line's making (the
 * machine of BENCHMARKS.md); under load the requests of one event-loop turn mostly end within
 * the same millisecond, so the text is made once for all of them. A new millisecond of the same
 * second only writes its last digits: V8 formats a date through a printf-like formatter, some 6,800
 * instructions a call, which made 0.42 calls a request under load (callgrind, the access log on,
 * 16 connections).
 */
export class IsoTime {
  private ms = Number.NaN;
  private text = '';
  /** The text up to the milliseconds (`2026-11-21T12:00:00.`) of the second `second`. */
  private second = Number.NaN;
  private prefix = '';

  of(ms: number): string {
    if (ms === this.ms) return this.text;
    // A time that is not a whole millisecond is truncated by Date; rare enough to leave to it.
    if (!Number.isInteger(ms)) return this.remember(ms, new Date(ms).toISOString());
    const second = Math.floor(ms / 1000);
    if (second !== this.second) {
      const whole = new Date(second * 1000).toISOString();
      if (!whole.endsWith('.000Z')) return this.remember(ms, new Date(ms).toISOString()); // out of Date's range
      this.prefix = whole.slice(0, -4);
      this.second = second;
    }
    const milli = ms - second * 1000;
    return this.remember(ms, `${this.prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`);
  }

  private remember(ms: number, text: string): string {
    this.ms = ms;
    this.text = text;
    return text;
  }
}
