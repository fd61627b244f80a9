import { spawnSync } from 'node:child_process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { oldGenerationGrowthChosen, YOUNG_GENERATION_CEILING_BYTES, youngGenerationChosen } from '../../../../src/lib/heap.ts';

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

const growth = suite('oldGenerationGrowthChosen');

growth('should leave the old generation\'s growth to an operator who set it by flag, and bound it otherwise', () => {
  assert.ok(oldGenerationGrowthChosen(['--heap-growing-percent=50'], ''));
  assert.ok(oldGenerationGrowthChosen(['--heap_growing_percent=10'], ''));
  assert.not.ok(oldGenerationGrowthChosen(['--max-semi-space-size=64', '--max-old-space-size=512'], '--inspect'));
});

const held = suite('sizeCollector');

/** The largest young generation (new space) a process reached while allocating with survivors, sized by sizeCollector or not. */
function largestNewSpace(sized: boolean): number {
  const heap = new URL('../../../../src/lib/heap.ts', import.meta.url).pathname;
  const program = `
    import { getHeapSpaceStatistics } from 'node:v8';
    ${sized ? `(await import(${JSON.stringify(heap)})).sizeCollector([], '');` : ''}
    const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let kept = [];
    let largest = 0;
    let rounds = 0;
    const work = () => {
      for (let i = 0; i < 20000; i++) { kept.push({ i, text: 'x'.repeat(20) }); if (kept.length > 3000) kept = kept.slice(1500); }
      largest = Math.max(largest, newSpace());
      if (++rounds < 400) setImmediate(work); else console.log(largest);
    };
    work();`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', program], { encoding: 'utf8' });
  assert.is(run.status, 0, run.stderr);
  return Number(run.stdout.trim());
}

held('should let the young generation grow to its ceiling and hold it there, where V8 alone grows it further', () => {
  const alone = largestNewSpace(false);
  const sized = largestNewSpace(true);
  assert.ok(alone > 2 * YOUNG_GENERATION_CEILING_BYTES, `V8 alone grew it past the ceiling here (${alone} bytes): the load is enough to tell`);
  assert.ok(sized >= YOUNG_GENERATION_CEILING_BYTES, `it grew to the ceiling (${sized} bytes)`);
  assert.ok(sized <= 2 * YOUNG_GENERATION_CEILING_BYTES, `and passed it by one doubling at most (${sized} bytes)`);
});

chosen.run();
held.run();
growth.run();
