/**
 * A time in milliseconds as ISO 8601 text (`2026-11-21T12:00:00.000Z`), the last one remembered.
 * `new Date(ms).toISOString()` costs 0.7 to 1 µs, a third of an access log line's making (the
 * machine of BENCHMARKS.md); under load the requests of one event-loop turn mostly end within
 * the same millisecond, so the text is made once for all of them.
 */
export class IsoTime {
  private ms = Number.NaN;
  private text = '';

  of(ms: number): string {
    if (ms !== this.ms) {
      this.text = new Date(ms).toISOString();
      this.ms = ms;
    }
    return this.text;
  }
}
