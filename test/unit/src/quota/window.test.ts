import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { journalLine } from '../../../../src/quota/journal.ts';
import { Coverage, WINDOW_MS, WindowCounts } from '../../../../src/quota/window.ts';

const T0 = Date.UTC(2026, 0, 1);

const taking = suite('WindowCounts.take');

taking('should open a window on the first count and say what remains after it', () => {
  const counts = new WindowCounts();
  assert.equal(counts.take('data org:a', 3, T0), { limit: 3, remaining: 2, resetAt: T0 + WINDOW_MS, exhausted: false });
  assert.equal(counts.take('data org:a', 3, T0 + 1000), { limit: 3, remaining: 1, resetAt: T0 + WINDOW_MS, exhausted: false });
  assert.equal(counts.take('data org:a', 3, T0 + 2000), { limit: 3, remaining: 0, resetAt: T0 + WINDOW_MS, exhausted: true });
  assert.is(counts.take('data org:a', 3, T0 + 3000), null, 'used up: nothing counted');
  assert.equal(counts.status('data org:a', 3, T0 + 3000).remaining, 0);
});

taking('should agree with status before and after, for every count up to the limit', () => {
  const counts = new WindowCounts();
  for (let i = 0; i < 5; i++) {
    const before = counts.status('data org:b', 5, T0 + i);
    const after = counts.take('data org:b', 5, T0 + i)!;
    assert.is(after.remaining, before.remaining - 1);
    assert.equal(after, counts.status('data org:b', 5, T0 + i));
  }
});

taking('should leave held slots to the requests holding them, and count nothing when only held slots are left', () => {
  const counts = new WindowCounts();
  counts.hold('critpt user:a/b');
  counts.hold('critpt user:a/b');
  assert.is(counts.take('critpt user:a/b', 2, T0), null);
  assert.equal(counts.toRecord(), {}, 'no window was opened');
  counts.unhold('critpt user:a/b');
  assert.equal(counts.take('critpt user:a/b', 2, T0), { limit: 2, remaining: 0, resetAt: T0 + WINDOW_MS, exhausted: true });
});

taking('should open a new window once the old one has ended', () => {
  const counts = new WindowCounts();
  counts.take('data org:c', 1, T0);
  assert.is(counts.take('data org:c', 1, T0 + WINDOW_MS - 1), null);
  assert.equal(counts.take('data org:c', 1, T0 + WINDOW_MS), { limit: 1, remaining: 0, resetAt: T0 + 2 * WINDOW_MS, exhausted: true });
});

const leasing = suite('WindowCounts leases');

leasing('should say a count past the ceiling is uncovered, queued once a lease is raised, written once it is written', () => {
  const counts = new WindowCounts();
  counts.take('data org:a', 1000, T0);
  assert.is(counts.coverage('data org:a'), Coverage.Uncovered);
  assert.is(counts.extendLease('data org:a', 1000), 10);
  assert.is(counts.coverage('data org:a'), Coverage.Queued);
  counts.leaseWritten('data org:a');
  assert.is(counts.coverage('data org:a'), Coverage.Written);
  for (let i = 0; i < 9; i++) counts.take('data org:a', 1000, T0);
  assert.is(counts.coverage('data org:a'), Coverage.Written, 'the tenth count is the lease\'s last');
  counts.take('data org:a', 1000, T0);
  assert.is(counts.coverage('data org:a'), Coverage.Uncovered);
  counts.extendLease('data org:a', 1000);
  counts.leaseFailed('data org:a');
  assert.is(counts.coverage('data org:a'), Coverage.Uncovered, 'a failed lease covers nothing');
});

leasing('should cap a lease at the quota, and replayed counts need no lease', () => {
  const counts = new WindowCounts();
  counts.apply('data org:b', T0, 498);
  counts.take('data org:b', 500, T0);
  assert.is(counts.coverage('data org:b'), Coverage.Uncovered);
  assert.is(counts.extendLease('data org:b', 500), 2, 'only the two requests left, not 5');
  counts.apply('data org:c', T0, 7);
  assert.is(counts.coverage('data org:c'), Coverage.Written);
  assert.equal(counts.openAt(T0).counts[1], 7);
});

leasing('should copy the served counts or the ceilings for a snapshot', () => {
  const counts = new WindowCounts();
  counts.take('data org:d', 1000, T0);
  counts.extendLease('data org:d', 1000);
  assert.equal([counts.openAt(T0, true).counts[0], counts.openAt(T0).counts[0]], [1, 10]);
});

const lines = suite('journalLine');

lines('should write what JSON.stringify writes for the same kind, scope and time, scopes with quotes and controls included', () => {
  for (const scope of ['org:a', 'user:acme/alice', 'user:"q"/\\back', 'org:tab\there\nnewline', 'user:ünï/çødé', 'org:\u2028']) {
    for (const at of [T0, 0, 1_764_000_000_123]) {
      for (const kind of ['data', 'critpt'] as const) {
        assert.is(journalLine(kind, scope, at), `${JSON.stringify([kind, scope, at])}\n`);
        assert.is(journalLine(kind, scope, at, 100), `${JSON.stringify([kind, scope, at, 100])}\n`);
        assert.is(journalLine(kind, scope, at, 100, 1), `${JSON.stringify([kind, scope, at, 100, 1])}\n`);
        assert.is(journalLine(kind, scope, at, 0, 7), `${JSON.stringify([kind, scope, at, 0, 7])}\n`);
      }
    }
  }
});

const marks = suite('WindowCounts served marks');

marks('should read the answers from the lines that note them, and count the leases when a server replays them', () => {
  const reader = new WindowCounts();
  const server = new WindowCounts();
  for (const [at, n, served] of [[T0, 100, 1], [T0 + 5, 0, 4], [T0 + 9, 100, 101]] as const) {
    reader.apply('data org:a', at, n, served);
    server.apply('data org:a', at, n);
  }
  assert.equal(reader.toRecord(), { 'data org:a': { start: T0, count: 101 } });
  assert.equal(server.toRecord(), { 'data org:a': { start: T0, count: 200 } }, 'a server cannot know what a crash cut: the leases');
  reader.apply('data org:b', T0, 0, 3);
  assert.equal(Object.keys(reader.toRecord()), ['data org:a'], 'a mark of a window not open opens none');
});

marks('should give each window served since to the next marks once, and again after a lease that failed', () => {
  const counts = new WindowCounts();
  counts.take('data org:a', 10_000, T0);
  counts.extendLease('data org:a', 10_000);
  assert.is(counts.noteServed('data org:a'), 1, 'the lease line notes the answer it covers');
  counts.leaseWritten('data org:a');
  assert.is(counts.unnoted('data org:a', T0 + 1), -1, 'nothing new to note');
  counts.take('data org:a', 10_000, T0 + 1);
  assert.is(counts.unnoted('data org:a', T0 + 2), 2);
  assert.is(counts.unnoted('data org:a', T0 + 3), -1, 'noted once');
  counts.unnote('data org:a');
  assert.is(counts.unnoted('data org:a', T0 + 4), 2, 'a mark that could not be written goes again');
  assert.is(counts.unnoted('data org:a', T0 + WINDOW_MS), -1, 'an ended window is not marked');
});

taking.run();
leasing.run();
marks.run();
lines.run();
