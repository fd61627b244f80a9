import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DURABLE_NOW, settled } from '../../src/state/quota-counter.ts';
import { leaseSize, WINDOW_MS } from '../../src/quota/window.ts';
import { fixture, journalFiles, T0, takeMany } from '../helpers/file-quota.ts';

/** Every journal line in the state folder, parsed, oldest journal first. */
function journalEntries(dir: string): unknown[][] {
  return journalFiles(dir)
    .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean))
    .map((line) => JSON.parse(line));
}

const leases = suite('quota leases');

leases('should be 1% of the quota, at least one request', () => {
  assert.equal([1, 10, 99, 100, 199, 500, 10_000, 1_000_000_000].map(leaseSize), [1, 1, 1, 1, 1, 5, 100, 10_000_000]);
});

leases('should write a lease before the first answer past the last one, and answer inside a written lease at once', async () => {
  const f = fixture();
  const book = f.open();
  const first = book.take('data', 'org:a', 1000).durable!;
  assert.is.not(first, DURABLE_NOW, 'the first answer waits for its lease');
  await settled(first);
  for (let i = 2; i <= 10; i++) assert.is(book.take('data', 'org:a', 1000).durable, DURABLE_NOW, `answer ${i} is inside the written lease`);
  f.clock.t = T0 + 5;
  const eleventh = book.take('data', 'org:a', 1000).durable!;
  assert.is.not(eleventh, DURABLE_NOW, 'the first answer past the lease waits for the next one');
  const twelfth = book.take('data', 'org:a', 1000).durable!;
  assert.is(twelfth, eleventh, 'an answer inside a lease not yet written waits for the same write');
  await settled(twelfth);
  assert.equal(journalEntries(f.dir), [
    ['data', 'org:a', T0, 10, 1],
    ['data', 'org:a', T0 + 5, 10, 11],
  ], 'each lease line notes the answers so far');
  book.close();
  f.cleanup();
});

leases('should charge at most the unused part of the lease after a crash, never less than was served', async () => {
  const f = fixture();
  let book = f.open();
  let served = 0;
  for (const n of [13, 1, 29, 10, 7]) {
    served += await takeMany(book, 'org:a', 1000, n);
    book = f.open(); // the last one was not closed: a kill -9
    const counted = 1000 - book.status('data', 'org:a', 1000).remaining;
    assert.ok(served <= counted && counted <= served + leaseSize(1000) - 1, `served ${served}, counted ${counted}`);
    assert.is(counted, Math.ceil(served / 10) * 10, 'counted up to the end of the lease');
    served = counted; // what the restarted server charges is where it goes on from
  }
  book.close();
  f.cleanup();
});

leases('should record the exact counts at a graceful stop', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 1000, 13);
  await takeMany(book, 'org:b', 50_000, 777);
  book.close();
  const again = f.open();
  assert.is(again.status('data', 'org:a', 1000).remaining, 1000 - 13);
  assert.is(again.status('data', 'org:b', 50_000).remaining, 50_000 - 777);
  // And goes on leasing from there: a crash now charges the new lease from the exact count.
  await takeMany(again, 'org:a', 1000, 1);
  const afterCrash = f.open();
  assert.is(afterCrash.status('data', 'org:a', 1000).remaining, 1000 - 13 - 10, 'the 13 and one lease');
  afterCrash.close();
  f.cleanup();
});

leases('should never lease past the quota', async () => {
  const f = fixture();
  const book = f.open();
  assert.is(await takeMany(book, 'org:a', 250, 249), 249);
  book.close(); // exact: 249
  const again = f.open();
  await takeMany(again, 'org:a', 250, 1);
  assert.equal(journalEntries(f.dir).at(-1), ['data', 'org:a', T0, 1, 250], 'a lease of the one request left');
  const afterCrash = f.open();
  assert.is(afterCrash.status('data', 'org:a', 250).remaining, 0);
  afterCrash.close();
  f.cleanup();
});

leases('should start a new lease with a new window', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 1000, 3);
  f.clock.t = T0 + WINDOW_MS;
  const { durable } = book.take('data', 'org:a', 1000);
  assert.is.not(durable, DURABLE_NOW, 'the old window\'s lease does not cover the new window');
  await settled(durable!);
  const again = f.open();
  const status = again.status('data', 'org:a', 1000);
  assert.is(status.remaining, 990, 'the new window charged one lease');
  assert.is(status.resetAt, T0 + 2 * WINDOW_MS);
  again.close();
  f.cleanup();
});

leases('should take back a lease that could not be written with the answers it covered, and lease again from what is written', async () => {
  const f = fixture();
  const book = f.open();
  await takeMany(book, 'org:a', 1000, 10); // one lease, used up
  f.failWrites = true;
  const failed = [book.take('data', 'org:a', 1000).durable!, book.take('data', 'org:a', 1000).durable!];
  const outcomes = await Promise.allSettled(failed.map(settled));
  assert.equal(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  assert.is(book.status('data', 'org:a', 1000).remaining, 990, 'neither answer counted');
  f.failWrites = false;
  const retried = book.take('data', 'org:a', 1000).durable!;
  assert.is.not(retried, DURABLE_NOW, 'the failed lease does not cover anything');
  await settled(retried);
  const again = f.open();
  assert.is(again.status('data', 'org:a', 1000).remaining, 980);
  again.close();
  f.cleanup();
});

leases('should lease CritPt commits the same way, each committed grading inside a written lease', async () => {
  const f = fixture();
  const book = f.open();
  for (let i = 0; i < 3; i++) {
    const { reservation } = book.reserve('critpt', 'user:a/b', 300);
    await reservation!.commit();
  }
  assert.equal(journalEntries(f.dir), [['critpt', 'user:a/b', T0, 3, 1]]);
  const again = f.open();
  assert.is(again.status('critpt', 'user:a/b', 300).remaining, 297);
  again.close();
  f.cleanup();
});

leases.run();
