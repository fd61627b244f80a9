import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { diffShape, type Item } from '../../../build/history/diff.ts';
import { SHAPES, type BuildRecord, type ShapeName } from '../../../build/history/history.ts';
import { changeCounts, changeSummary } from '../../../build/history/summary.ts';

const summary = suite('what a build changed, for its log');

const model = (id: string, index: number, price = 1): Item => ({
  id,
  slug: `model-${id}`,
  name: `Model ${id.toUpperCase()}`,
  evaluations: { platform_intelligence_index: index },
  pricing: { price_1m_input_tokens: price },
});

/** A record whose every shape changed from `before` to `after`. */
function record(before: Item[], after: Item[], previous: string | null = '20261119T000000Z-aaaaaaaa'): BuildRecord {
  const shapes = Object.fromEntries(SHAPES.map((shape) => [shape, diffShape(before, after)])) as Record<ShapeName, ReturnType<typeof diffShape>>;
  return { build_id: '20261120T000000Z-bbbbbbbb', data_as_of: '2026-11-20T00:00:00.000Z', previous_build_id: previous, shapes };
}

summary('should count models added, removed and changed, fields by kind, and name the largest moves of the index', () => {
  const before = [model('a', 40), model('b', 50), model('c', 30), model('d', 20)];
  const after = [model('a', 45, 2), model('b', 49), model('c', 30, 3), model('e', 10)];
  const r = record(before, after);
  assert.equal(changeCounts(r), {
    previous_build_id: '20261119T000000Z-aaaaaaaa',
    added: 1,
    removed: 1,
    changed: 3,
    fields_by_kind: { pricing: 2, evaluations: 2 },
  });
  assert.equal(changeSummary(r), [
    'changes since 20261119T000000Z-aaaaaaaa: 1 models added, 1 removed, 3 changed',
    '  fields changed (Pro list, long): evaluations 2, pricing 2', // most first, then by name
    '  largest moves of the intelligence index: Model A 40 -> 45 (+5); Model B 50 -> 49 (-1)',
    '  added: model-e',
    '  removed: model-d',
  ]);
});

summary('should say where the history starts, and say no more than the counts when nothing changed', () => {
  assert.equal(changeSummary(record([], [model('a', 1), model('b', 2)], null)), [
    'history starts at this build: 2 models (no earlier build\'s lists to compare with)',
  ]);
  assert.equal(changeSummary(record([model('a', 1)], [model('a', 1)])), [
    'changes since 20261119T000000Z-aaaaaaaa: 0 models added, 0 removed, 0 changed',
  ]);
});

summary.run();
