import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Conditions } from '../../../../src/lib/conditions.ts';

const conditions = suite('Conditions');

function logged(): { lines: string[]; conditions: Conditions } {
  const lines: string[] = [];
  return { lines, conditions: new Conditions({ begins: (line) => lines.push(`begins ${line}`), ends: (line) => lines.push(`ends ${line}`) }) };
}

conditions('should log a condition once when it begins and once when it ends, however often it is met', () => {
  const { lines, conditions: c } = logged();
  for (let i = 0; i < 1000; i++) c.begin('redis', `Redis refuses writes (${i})`);
  assert.equal(c.reasons(), ['Redis refuses writes (999)'], 'the latest reason is the one reported');
  c.end('redis');
  c.end('redis');
  assert.equal(lines, ['begins not ready: Redis refuses writes (0)', 'ends no longer: Redis refuses writes (999)']);
  assert.equal(c.reasons(), []);
  assert.not.ok(c.has('redis'));
});

conditions('should report every condition that holds, in the order they began', () => {
  const { conditions: c } = logged();
  c.begin('b', 'second');
  c.begin('a', 'first');
  c.begin('b', 'second again');
  assert.equal(c.reasons(), ['second again', 'first']);
  c.end('b');
  assert.equal(c.reasons(), ['first']);
  assert.ok(c.has('a'));
});

conditions('should log warnings with their own word, and give a reason by name', () => {
  const lines: string[] = [];
  const warnings = new Conditions({ begins: (line) => lines.push(line), ends: (line) => lines.push(line) }, 'warning');
  warnings.begin('redis persistence', 'Redis keeps nothing on disk');
  assert.is(warnings.reason('redis persistence'), 'Redis keeps nothing on disk');
  assert.is(warnings.reason('other'), undefined);
  warnings.end('redis persistence');
  assert.equal(lines, ['warning: Redis keeps nothing on disk', 'no longer: Redis keeps nothing on disk']);
});

conditions.run();
