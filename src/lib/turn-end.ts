/**
 * Work held to the end of the event-loop turn and run there together (one setImmediate a
 * turn). The server sends its data answers this way: with a turn's answers written one after
 * the other once its requests were all read and decided, the server answered 1.16 to 1.51
 * times the requests a second of the same server writing each answer as soon as it was decided
 * (Pro list page, c=16 and c=64, alternating runs; bench/analysis.md, "Answers at the turn's end").
 */
export class TurnEnd {
  private queued: (() => void)[] = [];
  private scheduled = false;

  /** `report` hears what a piece of work threw; the rest of the turn's work still runs. */
  constructor(private readonly report: (error: unknown) => void) {}

  defer(work: () => void): void {
    this.queued.push(work);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const queued = this.queued;
    this.queued = [];
    for (const work of queued) {
      try {
        work();
      } catch (error) {
        this.report(error);
      }
    }
  };
}
