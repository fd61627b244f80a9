/**
 * Work held to the end of the event-loop turn and run there together (one setImmediate a
 * turn). The server sends its data answers this way: with a turn's answers written one after
 * the other once its requests were all read and decided, the server answered 1.16 to 1.51
 * times the requests a second of the same server writing each answer as soon as it was decided
 * (Pro list page, c=16 and c=64, alternating runs; bench/analysis.md, "Answers at the turn's end").
 */
export class TurnEnd<T> {
  private queued: T[] = [];
  private scheduled = false;

  /**
   * `work` is what is done with each item at the turn's end (one function for every item, so that
   * deferring makes no closure a request); `report` hears what it threw for an item, and the rest
   * of the turn's items are still worked.
   */
  constructor(
    private readonly work: (item: T) => void,
    private readonly report: (error: unknown) => void,
  ) {}

  defer(item: T): void {
    this.queued.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const queued = this.queued;
    this.queued = [];
    for (const item of queued) {
      try {
        this.work(item);
      } catch (error) {
        this.report(error);
      }
    }
  };
}
