import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { digits } from '../../../../src/lib/digits.ts';

const same = suite('digits');

same('should write what String writes, for integers, the edges of safe integers and everything else', () => {
  const values = [0, -0, 1, -1, 7, 999, 1000, 2 ** 31, -(2 ** 31), 1_764_000_000_123, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53, 1e21, 1.5, -0.25, 1 / 3, NaN, Infinity, -Infinity];
  for (const n of values) assert.is(digits(n), String(n), `for ${n}`);
  for (let n = -2000; n <= 2000; n++) assert.is(digits(n * 7919), String(n * 7919));
});

/** Major collections while 2 million new timestamps become strings one way or the other, with a 1 MB young generation. */
function majorCollections(way: 'digits' | 'String'): number {
  const module = new URL('../../../../src/lib/digits.ts', import.meta.url).pathname;
  const convert = way === 'digits' ? `(await import(${JSON.stringify(module)})).digits` : '(n) => String(n)';
  const program = `const f = ${convert}; let sink = 0; for (let i = 0; i < 2e6; i++) sink += f(1764000000000 + i).length; if (!sink) throw new Error();`;
  const flags = ['--import', 'tsx', '--input-type=module', '--trace-gc', '--max-semi-space-size=1'];
  const run = spawnSync(process.execPath, [...flags, '-e', program], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  return run.stdout.split('\n').filter((line) => line.includes('Mark-Compact')).length;
}

same('should leave nothing in the old generation, where String leaves one string a number', () => {
  // The control shows the measure can see the cost: if a Node release stops caching, this says so.
  assert.ok(majorCollections('String') > 0, 'String caused no major collection: the cache this module avoids is gone');
  assert.is(majorCollections('digits'), 0);
});

same.run();
