/**
 * A deadline's check, put after the I/O already waiting. In each turn of the event loop timers
 * run before the poll phase reads the sockets, so after the loop was held (a busy turn, a
 * stalled process) a timer finds its deadline passed before the reply that arrived in time,
 * sitting unread in the socket, is read: every Redis command and sentinel question under way
 * would fail at once. Checked from setImmediate, which runs after that poll phase, the deadline
 * only fails what is still unanswered.
 */
export function afterIo(check: () => void): void {
  setImmediate(check);
}
