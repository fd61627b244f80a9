import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TurnEnd } from '../../../../src/lib/turn-end.ts';

const turnEnd = suite('TurnEnd');

turnEnd('should run the work of a turn at its end, together and in order, after the turn\'s own code', async () => {
  const order: string[] = [];
  const reported: unknown[] = [];
  const end = new TurnEnd<() => void>((work) => work(), (error) => reported.push(error));
  end.defer(() => order.push('first'));
  end.defer(() => order.push('second'));
  order.push('the turn goes on');
  await new Promise((r) => setImmediate(r));
  assert.equal(order, ['the turn goes on', 'first', 'second']);
  end.defer(() => order.push('next turn'));
  await new Promise((r) => setImmediate(r));
  assert.equal(order.at(-1), 'next turn');
  assert.equal(reported, []);
});

turnEnd('should report work that throws and still run the rest of the turn\'s', async () => {
  const ran: string[] = [];
  const reported: string[] = [];
  const end = new TurnEnd<string>((item) => {
    if (item === 'broken') throw new Error('an answer that broke');
    ran.push(item);
  }, (error) => reported.push((error as Error).message));
  end.defer('broken');
  end.defer('after it');
  await new Promise((r) => setImmediate(r));
  assert.equal(reported, ['an answer that broke']);
  assert.equal(ran, ['after it']);
});

turnEnd.run();
