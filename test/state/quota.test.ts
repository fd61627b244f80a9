import { appendFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { settled } from '../../src/state/quota-counter.ts';
import { journalNumber, QuotaStateError } from '../../src/quota/replay.ts';
import { leaseSize, WINDOW_MS } from '../../src/quota/window.ts';
import { fixture, header, HOUR, journalFiles, T0, takeMany, windowLines } from '../helpers/file-quota.ts';

const windows = suite('fixed 24-hour windows');

windows('should open a window on the first counted request and end it 24 hours later', async () => {
  const f = fixture();
  const book = f.open();
  assert.equal(book.status('data', 'org:a', 100), { limit: 100, remaining: 100, resetAt: T0 + WINDOW_MS, exhausted: false });
  f.clock.t = T0 + 5 * HOUR;
  const { status } = book.take('data', 'org:a', 100);
  assert.is(status.remaining, 99);
  assert.is(status.resetAt, T0 + 5 * HOUR + WINDOW_MS);
  f.clock.t = T0 + 20 * HOUR;
  assert.is(book.status('data', 'org:a', 100).resetAt, T0 + 5 * HOUR + WINDOW_MS, 'a later request does not move the window');
  book.close();
  f.cleanup();
});

windows('should refuse the request past the limit and give the whole quota back at window end', async () => {
  const f = fixture();
  const book = f.open();
  assert.is(await takeMany(book, 'org:a', 100, 101), 100);
  const refused = book.take('data', 'org:a', 100);
  assert.is(refused.durable, null);
  assert.ok(refused.status.exhausted);
  assert.is(refused.status.remaining, 0);
  f.clock.t = T0 + WINDOW_MS - 1;
  assert.ok(book.status('data', 'org:a', 100).exhausted, 'still the same window one millisecond before its end');
  f.clock.t = T0 + WINDOW_MS;
  const next = book.take('data', 'org:a', 100);
  assert.is(next.status.remaining, 99, 'a new window opens with the full quota');
  assert.is(next.status.resetAt, T0 + 2 * WINDOW_MS);
  book.close();
  f.cleanup();
});

windows('should keep separate counters per scope and per kind', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 10, 3);
  await takeMany(book, 'user:a/u1', 10, 1);
  assert.is(book.status('data', 'org:a', 10).remaining, 7);
  assert.is(book.status('data', 'user:a/u1', 10).remaining, 9);
  assert.is(book.status('critpt', 'org:a', 10).remaining, 10);
  book.close();
  f.cleanup();
});

windows.run();

const durability = suite('journal and restart');

durability('should keep every count across a restart', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 37);
  // No close(): the process "dies" here; the journal alone must carry the counts.
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 63);
  again.close();
  f.cleanup();
});

durability('should tolerate and report a torn last journal line', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 5);
  const journal = readdirSync(f.dir).find((n) => n.startsWith('quota.journal.'))!;
  appendFileSync(join(f.dir, journal), '["data","org:a",17');
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 95);
  assert.ok(f.logs.some((l) => l.includes('torn last line') && l.includes(journal)), f.logs.join('\n'));
  again.close();
  f.cleanup();
});

durability('should read only files named exactly as journals, leaving stray look-alikes alone', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 3);
  for (const stray of ['quota.journal.1e3', 'quota.journal.0x10', 'quota.journal.01', 'quota.journal.5.bak', 'quota.journal.']) {
    writeFileSync(join(f.dir, stray), '["data","org:a",1]\n["data","org:a",2]\n');
  }
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 97, 'the strays counted nothing');
  again.close();
  assert.ok(readdirSync(f.dir).includes('quota.journal.1e3'), 'and were not taken for old journals and deleted');
  assert.equal([journalNumber('quota.journal.7'), journalNumber('quota.journal.1e3'), journalNumber('quota.journal.07'), journalNumber('quota.journal.-1')], [7, null, null, null]);
  f.cleanup();
});

durability('should refuse to start on a corrupt line inside the journal, naming file and line', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 2);
  const journal = readdirSync(f.dir).find((n) => n.startsWith('quota.journal.'))!;
  const lines = readFileSync(join(f.dir, journal), 'utf8');
  writeFileSync(join(f.dir, journal), `garbage\n${lines}`);
  try {
    f.open();
    assert.unreachable('should have refused');
  } catch (error) {
    assert.instance(error, QuotaStateError);
    assert.match((error as Error).message, new RegExp(`${journal} line 1 is corrupt`));
  }
  f.cleanup();
});

durability('should refuse to start on a corrupt snapshot file rather than reset counters', async () => {
  const f = fixture();
  f.open().close();
  writeFileSync(join(f.dir, 'quota.json'), '{"format":1,"next_journal":');
  try {
    f.open();
    assert.unreachable('should have refused');
  } catch (error) {
    assert.instance(error, QuotaStateError);
    assert.match((error as Error).message, /quota\.json is corrupt/);
  }
  writeFileSync(join(f.dir, 'quota.json'), '{"format":1,"next_journal":2,"windows":{"data org:a":{"start":"x","count":1}}}');
  assert.throws(() => f.open(), /not a quota snapshot of format 1, 2 or 3/);
  f.cleanup();
});

durability('should read a format-1 quota.json and write it back as lines', async () => {
  const f = fixture();
  writeFileSync(join(f.dir, 'quota.json'), `${JSON.stringify({ format: 1, next_journal: 3, windows: { 'data org:a': { start: T0, count: 7 }, 'critpt user:a/u': { start: T0 - HOUR, count: 2 } } })}\n`);
  writeFileSync(join(f.dir, 'quota.journal.3'), `["data","org:a",${T0 + 1}]\n`);
  const book = f.open();
  assert.is(book.status('data', 'org:a', 100).remaining, 92);
  assert.is(book.status('critpt', 'user:a/u', 10).remaining, 8);
  assert.equal(header(f.dir), { format: 3, next_journal: 4, windows: 2 });
  assert.equal(windowLines(f.dir).sort(), [[T0, 8, 8, 'data org:a'], [T0 - HOUR, 2, 2, 'critpt user:a/u']].sort());
  book.close();
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 92);
  again.close();
  f.cleanup();
});

durability('should keep scopes with quotes, backslashes and other characters across a compaction', async () => {
  const f = fixture();
  const odd = ['org:"quoted"', 'user:back\\slash/u', 'user:tab\tnew\nline/ü', 'org:a,b],["c'];
  const book = f.open();
  for (const [i, scope] of odd.entries()) await takeMany(book, scope, 100, i + 1);
  book.close();
  const again = f.open();
  for (const [i, scope] of odd.entries()) assert.is(again.status('data', scope, 100).remaining, 100 - i - 1, scope);
  again.close();
  f.cleanup();
});

durability('should refuse a quota.json cut short or with a corrupt window line', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 1);
  await takeMany(book, 'org:b', 100, 1);
  book.close();
  const text = readFileSync(join(f.dir, 'quota.json'), 'utf8');
  const lines = text.split('\n');
  writeFileSync(join(f.dir, 'quota.json'), `${lines.slice(0, 2).join('\n')}\n`);
  assert.throws(() => f.open(), /quota\.json is corrupt \(1 windows, its header says 2\)/);
  writeFileSync(join(f.dir, 'quota.json'), text.replace(',1,"data org:b"]', ',x,"data org:b"]'));
  assert.throws(() => f.open(), /quota\.json is corrupt \(window line 3/);
  writeFileSync(join(f.dir, 'quota.json'), text.replace('"data org:b"]', '"data org:b]'));
  assert.throws(() => f.open(), /quota\.json is corrupt \(window line 3/);
  writeFileSync(join(f.dir, 'quota.json'), text);
  const again = f.open();
  assert.is(again.status('data', 'org:b', 100).remaining, 99);
  again.close();
  f.cleanup();
});

durability('should not double-count when a crash leaves both an old journal and the snapshot that folded it', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 4);
  const oldJournal = readdirSync(f.dir).find((n) => n.startsWith('quota.journal.'))!;
  const oldLines = readFileSync(join(f.dir, oldJournal));
  book.compact(); // folds the 4 into quota.json, starts a new journal, deletes the old one
  await takeMany(book, 'org:a', 100, 1);
  // Simulate a crash between writing the snapshot and deleting the old journal.
  writeFileSync(join(f.dir, oldJournal), oldLines);
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 95);
  again.close();
  f.cleanup();
});

durability('should drop expired windows at compaction so state does not grow', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:old', 100, 1);
  f.clock.t = T0 + WINDOW_MS + 1;
  await takeMany(book, 'org:new', 100, 1);
  book.compact();
  assert.equal(windowLines(f.dir).map((w) => w.at(-1)), ['data org:new']);
  assert.is(header(f.dir).windows, 1);
  book.close();
  f.cleanup();
});

durability('should compact in the background while counting goes on, losing and doubling nothing', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 1000, 10);
  const compaction = book.compactInBackground();
  // Counted while the snapshot is being written: these go to the new journal.
  await takeMany(book, 'org:a', 1000, 5);
  await compaction;
  await takeMany(book, 'org:a', 1000, 2);
  const journals = journalFiles(f.dir);
  assert.equal(journals, ['quota.journal.2'], 'the folded journal is gone');
  assert.is(header(f.dir).next_journal, 2);
  const again = f.open(); // no close(): a crash right after
  // 17 served under leases of 10: the journal holds two leases, the last one's unused part charged.
  assert.is(leaseSize(1000), 10);
  assert.is(again.status('data', 'org:a', 1000).remaining, 1000 - 20);
  again.close();
  f.cleanup();
});

durability('should let a shutdown compaction win over a background one still writing', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 1000, 4);
  const compaction = book.compactInBackground();
  await takeMany(book, 'org:a', 1000, 3);
  book.close(); // compacts synchronously past the background one
  await compaction;
  assert.is(header(f.dir).next_journal, 3, 'the newer snapshot stands');
  const again = f.open();
  assert.is(again.status('data', 'org:a', 1000).remaining, 993);
  again.close();
  f.cleanup();
});

durability("should settle a turn's counts together, answering the rest when one waiter throws", async () => {
  const f = fixture();
  const book = f.open();
  const first = book.take('data', 'org:a', 100).durable!;
  const second = book.take('data', 'org:a', 100).durable!;
  assert.is(first, second, 'one turn, one write');
  const order: string[] = [];
  first.onSettled(() => {
    order.push('first');
    throw new Error('an answer that broke');
  });
  await settled(second);
  order.push('second');
  assert.equal(order, ['first', 'second']);
  assert.ok(f.logs.some((l) => l.includes("a counted request's answer failed") && l.includes('an answer that broke')), f.logs.join('\n'));
  let late = false;
  first.onSettled((error) => (late = error === null));
  assert.ok(late, 'a waiter added after the write is called at once');
  book.close();
  f.cleanup();
});

durability('should take counts back and reject when the journal cannot be written', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 1);
  // Writes fail the way a failing disk would surface them.
  f.failWrites = true;
  const { durable } = book.take('data', 'org:a', 100);
  let rejected = false;
  await settled(durable!).catch(() => (rejected = true));
  assert.ok(rejected);
  assert.is(book.status('data', 'org:a', 100).remaining, 99, 'the failed request is not counted');
  assert.ok(f.logs.some((l) => l.includes('quota journal write failed')));
  f.cleanup();
});

durability('should cut a short write back to whole lines, count none of its batch, and say why while writes fail', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 3);
  f.failWrites = true;
  f.partialBytes = 30; // the disk takes part of the batch, then is full
  const failed = [settled(book.take('data', 'org:a', 100).durable!), settled(book.take('data', 'org:a', 100).durable!)];
  const outcomes = await Promise.allSettled(failed);
  assert.equal(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  assert.match(String(book.problem()), /quota journal writes fail: ENOSPC/);
  const journal = journalFiles(f.dir)[0]!;
  const text = readFileSync(join(f.dir, journal), 'utf8');
  assert.ok(text.endsWith('\n'), 'the journal ends on a whole line');
  assert.is(text.split('\n').filter(Boolean).length, 3, 'only the three recorded requests');
  f.failWrites = false;
  await takeMany(book, 'org:a', 100, 1);
  assert.is(book.problem(), null, 'ready again once a write succeeds');
  const again = f.open(); // kill -9 here: no close
  assert.is(again.status('data', 'org:a', 100).remaining, 96, '3 + 1 counted, the failed two not');
  again.close();
  f.cleanup();
});

durability('should start a new journal when a torn write cannot be cut back, and replay past the torn line', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 2);
  const journal = journalFiles(f.dir)[0]!;
  // What a failed cut-back leaves: a torn line at the end of a journal that is not the newest.
  appendFileSync(join(f.dir, journal), '["data","org:a",17');
  (book as unknown as { journal: { torn: boolean } }).journal.torn = true;
  await takeMany(book, 'org:a', 100, 2);
  assert.is(journalFiles(f.dir).length, 2, 'counting went on in a new journal');
  const again = f.open();
  assert.is(again.status('data', 'org:a', 100).remaining, 96);
  assert.ok(f.logs.some((l) => l.includes('torn last line')));
  again.close();
  f.cleanup();
});

durability('should write files only the owner can read', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 100, 1);
  book.close();
  const { statSync } = await import('node:fs');
  const check = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const stat = statSync(join(dir, name));
      // Folders (the usage history's) only the owner can enter, files only the owner can read.
      assert.is(stat.mode & 0o777, stat.isDirectory() ? 0o700 : 0o600, name);
      if (stat.isDirectory()) check(join(dir, name));
    }
  };
  check(f.dir);
  f.cleanup();
});

durability.run();
