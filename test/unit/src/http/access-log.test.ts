import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AccessLog, type AccessEntry } from '../../../../src/http/access-log.ts';

const log = suite('AccessLog');

const entry = (i: number): AccessEntry => ({ time: '2026-11-21T12:00:00.000Z', client: '127.0.0.1', method: 'GET', route: 'models', path: `/api/v2/language/models?i=${i}`, status: 200, bytes: 1000, ms: 1 });
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A stream whose reader has stopped until `release`: every write is held, so its backlog only grows. */
function stalledStream() {
  const written: string[] = [];
  let held: (() => void) | null = null;
  let released = false;
  const stream = new Writable({
    highWaterMark: 1024,
    decodeStrings: false,
    write(chunk: string, _encoding, done) {
      written.push(chunk);
      if (released) done();
      else held = done;
    },
  });
  const release = () => {
    released = true;
    held?.();
  };
  return { stream, written, release, lines: () => written.join('').split('\n').filter(Boolean).length };
}

log('should drop and count lines past the backlog bound while the reader is stopped, then say how many', async () => {
  const { stream, release, lines } = stalledStream();
  let dropped = 0;
  const notices: string[] = [];
  const bound = 20_000;
  const accessLog = new AccessLog(stream, { backlogBytes: bound, dropped: (n) => (dropped += n), notice: (line) => notices.push(line) });
  const perTurn = 10;
  const turnBytes = JSON.stringify(entry(0)).length * perTurn * 1.1;
  const turns = 200;
  let peak = 0;
  for (let t = 0; t < turns; t++) {
    for (let i = 0; i < perTurn; i++) accessLog.record(entry(t * perTurn + i));
    await turn();
    peak = Math.max(peak, stream.writableLength);
  }
  // What the stream holds stays within the bound and one turn, whatever was offered (20 times the bound).
  assert.ok(peak <= bound + turnBytes, `backlog peaked at ${peak} bytes, bound ${bound}`);
  assert.ok(dropped > 0, 'lines were dropped');
  assert.is(notices.length, 0, 'no notice before the stream drains');
  release();
  await turn();
  assert.is(lines() + dropped, turns * perTurn, 'every line was written or counted as dropped');
  assert.is(notices.length, 1);
  assert.match(notices[0], `${dropped} lines dropped`);
  // Written again once drained.
  accessLog.record(entry(-1));
  await turn();
  assert.is(lines() + dropped, turns * perTurn + 1);
});

log('should write everything to a stream that keeps up, however much', async () => {
  const { stream, release, lines } = stalledStream();
  release();
  let dropped = 0;
  const accessLog = new AccessLog(stream, { backlogBytes: 1000, dropped: (n) => (dropped += n) });
  for (let t = 0; t < 20; t++) {
    for (let i = 0; i < 50; i++) accessLog.record(entry(i));
    await turn();
  }
  assert.is(dropped, 0);
  assert.is(lines(), 1000);
});

log.run();
