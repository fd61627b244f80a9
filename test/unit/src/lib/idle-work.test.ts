import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdleWork } from '../../../../src/lib/idle-work.ts';

const idle = suite('IdleWork');

/** Resolve once `done()` holds, checking every few milliseconds; fail after a generous wait. */
async function until(done: () => boolean, ms = 2000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!done()) {
    if (performance.now() > deadline) throw new Error('timed out');
    await sleep(2);
  }
}

idle('should hold steps back while requests keep arriving, then run them in order', async () => {
  const work = new IdleWork();
  const ran: number[] = [];
  work.add([1, 2, 3].map((n) => () => ran.push(n)));
  for (let i = 0; i < 20; i++) {
    work.busy();
    await sleep(3);
  }
  assert.equal(ran, [], 'nothing runs while the server is busy');
  await until(() => ran.length === 3);
  assert.equal(ran, [1, 2, 3]);
});

idle('should drop what is left when stopped', async () => {
  const work = new IdleWork();
  const ran: number[] = [];
  work.add([() => ran.push(1), () => work.stop(), () => ran.push(3)]);
  await until(() => ran.length === 1);
  await sleep(100);
  assert.equal(ran, [1]);
});

idle.run();
