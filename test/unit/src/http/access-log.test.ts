import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  AccessLog,
  accessLine,
  loggedTarget,
  LoggedTargets,
  REDACTED,
  type AccessEntry,
} from '../../../../src/http/access-log.ts';
import { seededRandom } from '../../../helpers/random.ts';

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

const lines = suite('accessLine and LoggedTargets');

/** Text a client may put in a target, or a proxy in a forwarded address: quotes, escapes, controls, non-ASCII, lone surrogates. */
const HOSTILE = ['"', '\\', '\n', '\u0000', '\u001f', '\u007f', 'é', '€', '😀', '\ud800', '\udfff', '</script>', '%22', ' '];

lines('should write what JSON.stringify writes for each entry, its query and key there or not', () => {
  const next = seededRandom(11);
  const pick = (items: readonly string[]) => items[Math.floor(next() * items.length)]!;
  const text = () => Array.from({ length: Math.floor(next() * 12) }, () => (next() < 0.4 ? pick(HOSTILE) : String.fromCharCode(32 + Math.floor(next() * 95)))).join('');
  for (let i = 0; i < 2000; i++) {
    const entry: AccessEntry = {
      time: new Date(Math.floor(next() * 4e12)).toISOString(),
      client: next() < 0.8 ? '203.0.113.7' : text(),
      method: pick(['GET', 'HEAD', 'POST', 'OPTIONS']),
      route: pick(['language.models', 'critpt.evaluate', 'unmatched']),
      path: `/${text()}`,
      query: next() < 0.5 ? text() : undefined,
      status: pick(['200', '304', '404', '429', '499']) as unknown as number,
      bytes: Math.floor(next() * 1e6),
      ms: Math.round(next() * 5e6) / 1000,
      key: next() < 0.7 ? 'key_0123456789ab' : undefined,
    };
    entry.status = Number(entry.status);
    assert.is(accessLine(entry), JSON.stringify(entry), JSON.stringify(entry));
  }
});

lines('should give a target remembered as it gives it anew: cut, redacted, the query apart', () => {
  const targets = new LoggedTargets();
  const cases = [
    '/api/v2/language/models?page=1',
    '/api/v2/language/models?page=1',
    '/api/v2/language/models',
    '/api/v2/language/models?',
    '/x/bdk_abcdefgh1234?token=s3cret&page=2&k=bdk%5Fabc',
    `/${'a'.repeat(600)}?${'q=1&'.repeat(200)}`,
    `/${'b'.repeat(400)}?api_key=${'c'.repeat(200)}`,
  ];
  for (const target of [...cases, ...cases]) assert.equal(targets.of(target), loggedTarget(target), target.slice(0, 60));
  assert.equal(loggedTarget('/x/bdk_abcdefgh1234?token=s3cret&page=2&k=bdk%5Fabc'), {
    path: `/x/bdk_${REDACTED}`,
    query: `token=${REDACTED}&page=2&k=bdk_${REDACTED}`,
  });
  assert.is(loggedTarget('/api/v2/language/models?').query, undefined);
  assert.is(loggedTarget(`/${'a'.repeat(600)}`).path, `/${'a'.repeat(511)}...`);
});

log.run();
lines.run();
