import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Sleeper } from '../../../../src/lib/sleeper.ts';

const sleeper = suite('Sleeper');

sleeper('should end a wait with false when its time is up', async () => {
  assert.is(await new Sleeper().sleep(1), false);
});

sleeper('should end every wait under way with true at wakeAll, and every later one at once', async () => {
  const s = new Sleeper();
  // Far longer than the test: only wakeAll can end these.
  const waits = [s.sleep(3_600_000), s.sleep(3_600_000)];
  s.wakeAll();
  assert.equal(await Promise.all(waits), [true, true]);
  assert.is(await s.sleep(3_600_000), true);
});

sleeper.run();
