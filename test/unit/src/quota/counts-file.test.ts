import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { LINES_PER_SLICE, parseCounts, countsText } from '../../../../src/quota/counts-file.ts';
import { WINDOW_MS, WindowCounts, type Window } from '../../../../src/quota/window.ts';

const T0 = Date.UTC(2026, 0, 1);

const text = suite('quota.json, format 3');

text('should write the header, then the open windows a slice at a time, and read them back', () => {
  const counts = new WindowCounts();
  const n = 2 * LINES_PER_SLICE + 3;
  for (let i = 0; i < n; i++) counts.set(`data org:${i}`, { start: T0 + i, count: i });
  counts.set('data org:ended', { start: T0 - WINDOW_MS, count: 5 });
  const parts = [...countsText(7, counts.openAt(T0))];
  assert.equal(JSON.parse(parts[0]!), { format: 3, next_journal: 7, windows: n });
  assert.ok(parts.length >= 4, 'header and three slices');
  for (const part of parts.slice(1)) assert.ok(part.split('\n').length - 1 <= LINES_PER_SLICE);
  const read: Record<string, Window> = {};
  assert.is(parseCounts('quota.json', parts.join(''), (counter, window) => (read[counter] = window)), 7);
  assert.is(Object.keys(read).length, n, 'the ended window left out');
  assert.equal(read['data org:42'], { start: T0 + 42, count: 42 });
});

text('should copy the windows as they stand: counts made after the copy are not in it', () => {
  const counts = new WindowCounts();
  counts.apply('data org:a', T0);
  const copy = counts.openAt(T0);
  counts.apply('data org:a', T0 + 1);
  counts.apply('data org:b', T0 + 1);
  const read: Record<string, Window> = {};
  parseCounts('quota.json', [...countsText(1, copy)].join(''), (counter, window) => (read[counter] = window));
  assert.equal(read, { 'data org:a': { start: T0, count: 1 } });
});

text('should reuse the slots of expired windows', () => {
  const counts = new WindowCounts();
  counts.apply('data org:a', T0);
  counts.apply('data org:b', T0 + WINDOW_MS / 2);
  counts.expire(T0 + WINDOW_MS);
  assert.is(counts.slotCount, 2);
  counts.apply('data org:c', T0 + WINDOW_MS);
  assert.is(counts.slotCount, 2, 'org:c took org:a\'s slot');
  assert.equal(counts.toRecord(), { 'data org:b': { start: T0 + WINDOW_MS / 2, count: 1 }, 'data org:c': { start: T0 + WINDOW_MS, count: 1 } });
});

text('should keep the answers served beside the leases, and read format 2 lines as served in full', () => {
  const counts = new WindowCounts();
  counts.take('data org:a', 10_000, T0);
  counts.extendLease('data org:a', 10_000);
  counts.leaseWritten('data org:a');
  counts.take('data org:a', 10_000, T0 + 1);
  const copy = [...countsText(4, counts.openAt(T0 + 2))].join('');
  assert.ok(copy.includes('[' + T0 + ',100,2,"data org:a"]'), copy);
  const read: Record<string, [Window, number]> = {};
  parseCounts('quota.json', copy, (counter, window, served) => (read[counter] = [window, served]));
  assert.equal(read['data org:a'], [{ start: T0, count: 100 }, 2], 'a server counts the lease; a reader sees two answers');
  const stopped = [...countsText(4, counts.openAt(T0 + 2, true))].join('');
  assert.ok(stopped.includes('[' + T0 + ',2,2,"data org:a"]'), 'a graceful stop writes the answers as the count');
  const formatTwo = `{"format":2,"next_journal":1,"windows":1}\n[${T0},7,"data org:b"]\n`;
  parseCounts('quota.json', formatTwo, (counter, window, served) => (read[counter] = [window, served]));
  assert.equal(read['data org:b'], [{ start: T0, count: 7 }, 7]);
});

text.run();
