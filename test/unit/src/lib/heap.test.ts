import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { oldGenerationGrowthChosen, youngGenerationChosen } from '../../../../src/lib/heap.ts';

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

chosen.run();
growth.run();
