import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { growthFactor, YOUNG_GENERATION_BYTES, youngGenerationChosen } from '../../src/heap.ts';

const chosen = suite('youngGenerationChosen');

chosen('should leave the young generation to an operator who sized it by flag or NODE_OPTIONS', () => {
  assert.ok(youngGenerationChosen(['--max-semi-space-size=64'], ''));
  assert.ok(youngGenerationChosen([], '--enable-source-maps --max_semi_space_size=8'));
  assert.ok(youngGenerationChosen(['--min-semi-space-size=4'], ''));
  assert.ok(youngGenerationChosen(['--semi-space-growth-factor=2'], ''));
});

chosen('should hold it when no flag speaks of it', () => {
  assert.not.ok(youngGenerationChosen([], ''));
  assert.not.ok(youngGenerationChosen(['--max-old-space-size=512', '--enable-source-maps'], '--inspect'));
});

const steering = suite('growthFactor');

steering('should let the space double below its ceiling and stop it there', () => {
  assert.is(growthFactor(1024 * 1024, YOUNG_GENERATION_BYTES), 2);
  assert.is(growthFactor(YOUNG_GENERATION_BYTES - 1, YOUNG_GENERATION_BYTES), 2);
  assert.is(growthFactor(YOUNG_GENERATION_BYTES, YOUNG_GENERATION_BYTES), 1);
  assert.is(growthFactor(4 * YOUNG_GENERATION_BYTES, YOUNG_GENERATION_BYTES), 1);
});

/** The largest new space a child process reached while allocating with many survivors, in bytes; `hold` says whether it held. */
function largestNewSpace(hold: boolean): number {
  const heap = fileURLToPath(new URL('../../src/heap.ts', import.meta.url));
  const program = `
    import { getHeapSpaceStatistics } from 'node:v8';
    const { holdYoungGeneration } = await import(${JSON.stringify(heap)});
    if (${hold} && !holdYoungGeneration([], '')) throw new Error('not held');
    const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    const keep = [];
    let largest = 0;
    for (let round = 0; round < 40; round++) {
      for (let i = 0; i < 100000; i++) { const o = { i, s: 'x' + i }; if (i % 5 === 0) keep.push(o); if (keep.length > 20000) keep.splice(0, 10000); }
      largest = Math.max(largest, size());
      await new Promise((next) => setImmediate(next)); // the observer's turn
    }
    console.log(largest);`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  return Number(run.stdout.trim());
}

steering('should grow the young generation to its ceiling under load and no further, where V8 alone grows it past', () => {
  // The control shows the load would grow the space further: otherwise the ceiling proves nothing.
  assert.ok(largestNewSpace(false) > YOUNG_GENERATION_BYTES, 'V8 did not grow the young generation past the ceiling by itself');
  assert.is(largestNewSpace(true), YOUNG_GENERATION_BYTES);
});

chosen.run();
steering.run();
