/**
 * A child process for test/ops/access-log-pipe.test.ts: the server's access log over this
 * process's real stdout, fed `turns` turns of `perTurn` lines. Its report goes to stderr as one
 * JSON line, then the log's notice once the parent reads stdout again; it exits after that.
 *
 *   tsx test/helpers/access-log-writer.ts BACKLOG_BYTES TURNS PER_TURN
 */
import { AccessLog } from '../../src/http/access-log.ts';

const [backlogBytes, turns, perTurn] = process.argv.slice(2).map(Number);
let dropped = 0;
const accessLog = new AccessLog(process.stdout, {
  backlogBytes,
  dropped: (lines) => (dropped += lines),
  notice: (line) => process.stderr.write(`${line}\n`),
});
const path = `/api/v2/language/models/${'m'.repeat(200)}`;
/** Bytes held after a collection (run with --expose-gc): the heap and what lives outside it (the write queue's buffers). */
function held(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}
const heldBefore = held();
let offered = 0;
let peak = 0;
for (let t = 0; t < turns; t++) {
  for (let i = 0; i < perTurn; i++) {
    const entry = { time: new Date(0).toISOString(), client: '127.0.0.1', method: 'GET', route: 'models', path, status: 200, bytes: i, ms: t };
    offered += JSON.stringify(entry).length + 1;
    accessLog.record(entry);
  }
  await new Promise((resolve) => setImmediate(resolve));
  peak = Math.max(peak, process.stdout.writableLength);
}
process.stderr.write(`${JSON.stringify({ offered, peak, dropped, lines: turns * perTurn, growth: held() - heldBefore })}\n`);
