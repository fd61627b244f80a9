import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { setTimeout as sleep } from 'node:timers/promises';
import { IdleWork, QUIET_MS } from '../../../../src/lib/idle-work.ts';
import { until } from '../../../helpers/wait.ts';

const idle = suite('IdleWork');

idle('should hold steps back while requests keep arriving, then run them in order', async () => {
  const work = new IdleWork();
  const ran: { step: number; at: number }[] = [];
  const busyAt: number[] = [];
  work.add([1, 2, 3].map((step) => () => ran.push({ step, at: performance.now() })));
  for (let i = 0; i < 20; i++) {
    busyAt.push(performance.now());
    work.busy();
    await sleep(3);
  }
  await until(() => ran.length === 3, 'the three steps run once requests stop');
  assert.equal(ran.map((r) => r.step), [1, 2, 3]);
  // Not "nothing ran during the loop" (a busy machine may leave a quiet gap between two
  // requests, and then a step may run): every step ran only after a quiet moment since the
  // last request before it, on the clock IdleWork reads itself. A rule of IdleWork, not a
  // latency: a busy machine only makes the gap longer.
  for (const { step, at } of ran) {
    const lastBusy = Math.max(...busyAt.filter((t) => t <= at));
    assert.ok(at - lastBusy >= QUIET_MS, `step ${step} ran ${(at - lastBusy).toFixed(1)} ms after a request, not after ${QUIET_MS} ms of quiet`);
  }
});

idle('should drop what is left when stopped', async () => {
  const work = new IdleWork();
  const ran: number[] = [];
  let stopped = false;
  const stop = () => {
    work.stop();
    stopped = true;
  };
  work.add([() => ran.push(1), stop, () => ran.push(3)]);
  await until(() => stopped, 'the second step runs');
  // Steps run in order, so a step queued after the stop would run after step 3 had it been kept.
  work.add([() => ran.push(4)]);
  await until(() => ran.includes(4), 'a step queued after the stop runs');
  assert.equal(ran, [1, 4]);
});

idle.run();
