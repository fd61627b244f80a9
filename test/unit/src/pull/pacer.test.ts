import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Pacer } from '../../../../src/pull/pacer.ts';

const pacer = suite('Pacer');

/** A step that records when it ran and ends when told. */
function steps() {
  const log: string[] = [];
  const step = (name: string) => () =>
    new Promise<string>((resolve) => {
      log.push(`start ${name}`);
      setImmediate(() => {
        log.push(`end ${name}`);
        resolve(name);
      });
    });
  return { log, step };
}

pacer('should run steps at once, side by side, while the server is quiet', async () => {
  const pauses: number[] = [];
  const p = new Pacer(
    () => true,
    async (ms) => (pauses.push(ms), false),
  );
  const { log, step } = steps();
  assert.equal(await Promise.all([p.run(step('a')), p.run(step('b'))]), ['a', 'b']);
  assert.equal(log, ['start a', 'start b', 'end a', 'end b']);
  assert.equal(pauses, []);
});

pacer('should run them one at a time while busy, each followed by a pause, a failed one too', async () => {
  const pauses: number[] = [];
  const p = new Pacer(
    () => false,
    async (ms) => (pauses.push(ms), false),
  );
  const { log, step } = steps();
  const failing = p.run(() => Promise.reject(new Error('no')));
  const results = await Promise.allSettled([failing, p.run(step('a')), p.run(step('b'))]);
  assert.equal(
    results.map((r) => r.status),
    ['rejected', 'fulfilled', 'fulfilled'],
  );
  assert.equal(log, ['start a', 'end a', 'start b', 'end b']);
  assert.is(pauses.length, 3);
  for (const ms of pauses) assert.ok(ms >= 0 && ms <= 50, String(ms));
});

pacer.run();
