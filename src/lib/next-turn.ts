/** A promise of the event loop's next turn (after its I/O poll): work done in slices lets requests in between. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
