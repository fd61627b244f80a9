import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  compositeIndex,
  computeIndices,
  normalize,
  normalizedScore,
  publishedVersion,
  scoreReader,
  subsetComponents,
  type ScoreReader,
} from '../../../../build/derive/indices.ts';
import type { IndexComponent } from '../../../../build/types.ts';
import { modelOne, modelTwo, tinyIndices } from '../../../helpers/tiny-dataset.ts';

/** A reader over plain pointer -> score pairs; anything unlisted is missing. */
function readerOf(scores: Record<string, number | null>): ScoreReader {
  return (pointer) => scores[pointer] ?? null;
}

const normalizing = suite('normalize');

normalizing('should place a score linearly between its anchors', () => {
  // (1200 - 800) / (1600 - 800) = 400 / 800 = 0.5
  assert.is(normalize(1200, { min: 800, max: 1600 }), 0.5);
  // (0.3 - 0) / (1 - 0) = 0.3
  assert.is(normalize(0.3, { min: 0, max: 1 }), 0.3);
});

normalizing('should handle a negative lower anchor', () => {
  // (-50 - -100) / (100 - -100) = 50 / 200 = 0.25
  assert.is(normalize(-50, { min: -100, max: 100 }), 0.25);
  // (0 + 100) / 200 = 0.5: zero sits in the middle, not at the bottom
  assert.is(normalize(0, { min: -100, max: 100 }), 0.5);
});

normalizing('should be exactly 0 and 1 on the anchors', () => {
  assert.is(normalize(800, { min: 800, max: 1600 }), 0);
  assert.is(normalize(1600, { min: 800, max: 1600 }), 1);
});

normalizing('should clamp scores outside the anchors to 0..1', () => {
  // (1700 - 800) / 800 = 1.125 -> 1; (700 - 800) / 800 = -0.125 -> 0
  assert.is(normalize(1700, { min: 800, max: 1600 }), 1);
  assert.is(normalize(700, { min: 800, max: 1600 }), 0);
  assert.is(normalize(-150, { min: -100, max: 100 }), 0);
});

normalizing.run();

const reading = suite('scoreReader');

reading('should read a number through a JSON pointer', () => {
  const read = scoreReader(modelOne());
  assert.is(read('/evaluations/scicode'), 0.7);
  assert.is(read('/omniscience_breakdown/total/omniscience'), 22);
});

reading('should be null for a null, missing or non-numeric value', () => {
  const read = scoreReader(modelOne());
  assert.is(read('/evaluations/ifbench'), null);
  assert.is(read('/evaluations/critpt'), null);
  assert.is(read('/name'), null);
  assert.is(scoreReader(modelTwo())('/omniscience_breakdown/total/omniscience'), null);
});

reading.run();

const composite = suite('compositeIndex');

const A: IndexComponent = { id: 'a', score: '/a', weight: 1, min: 0, max: 10 };
const B: IndexComponent = { id: 'b', score: '/b', weight: 3, min: 0, max: 1 };
const C: IndexComponent = { id: 'c', score: '/c', weight: 1, min: -100, max: 100 };

composite('should average normalised scores by weight onto 0..100', () => {
  // a: 5/10 = 0.5 (w1); b: 0.9 (w3) -> (0.5 + 2.7) / 4 = 0.8 -> 80
  assert.is(compositeIndex([A, B], readerOf({ '/a': 5, '/b': 0.9 })), 80);
});

composite('should round to 1 decimal', () => {
  // three weight-1 components at 1, 0, 0 -> 1/3 = 0.3333 -> 33.33 -> 33.3
  const unit = (id: string): IndexComponent => ({ id, score: `/${id}`, weight: 1, min: 0, max: 1 });
  assert.is(compositeIndex([unit('x'), unit('y'), unit('z')], readerOf({ '/x': 1, '/y': 0, '/z': 0 })), 33.3);
  // 2/3 = 0.6667 -> 66.67 -> 66.7
  assert.is(compositeIndex([unit('x'), unit('y'), unit('z')], readerOf({ '/x': 1, '/y': 1, '/z': 0 })), 66.7);
});

composite('should clamp a score beyond its anchors before weighing it', () => {
  // a: 15/10 -> 1 (w1); b: 0.9 (w3) -> (1 + 2.7) / 4 = 0.925 -> 92.5 (unclamped would be 105)
  assert.is(compositeIndex([A, B], readerOf({ '/a': 15, '/b': 0.9 })), 92.5);
});

composite('should normalise against a negative lower anchor', () => {
  // c: (-50 + 100) / 200 = 0.25 -> 25
  assert.is(compositeIndex([C], readerOf({ '/c': -50 })), 25);
});

composite('should count a zero score, not treat it as missing', () => {
  // a: 0 (w1); b: 0.9 (w3) -> 2.7 / 4 = 0.675 -> 67.5
  assert.is(compositeIndex([A, B], readerOf({ '/a': 0, '/b': 0.9 })), 67.5);
});

composite('should be null when any component is missing', () => {
  assert.is(compositeIndex([A, B, C], readerOf({ '/a': 5, '/b': 0.9 })), null);
  assert.is(compositeIndex([A, B, C], readerOf({ '/a': 5, '/b': null, '/c': 0 })), null);
});

composite('should be null without components', () => {
  assert.is(compositeIndex([], readerOf({})), null);
});

composite.run();

const subsets = suite('subsetComponents');

subsets("should take the intelligence index's own components with their weights and anchors", () => {
  const defs = tinyIndices();
  assert.equal(subsetComponents(defs, 'platform_agentic_index'), [
    { id: 'gdpval_platform', score: '/evaluations/gdpval_platform_elo', weight: 2, min: 800, max: 1600, tasks: 10 },
    { id: 'platform_omniscience', score: '/omniscience_breakdown/total/omniscience', weight: 1, min: -100, max: 100, tasks: 30 },
  ]);
  assert.equal(
    subsetComponents(defs, 'platform_coding_index').map((c) => c.id),
    ['scicode'],
  );
});

subsets('should be empty for an unknown subset', () => {
  assert.equal(subsetComponents(tinyIndices(), 'platform_nonexistent_index'), []);
});

subsets.run();

const computing = suite('computeIndices');

computing('should compute every composite of a fully scored model', () => {
  const indices = computeIndices(tinyIndices(), scoreReader(modelOne()));
  assert.equal(indices, {
    // gdpval (1400-800)/800 = 0.75 (w2), scicode 0.7 (w3), omniscience (22+100)/200 = 0.61 (w1):
    // (1.5 + 2.1 + 0.61) / 6 = 4.21 / 6 = 0.70167 -> 70.2
    platform_intelligence_index: 70.2,
    // scicode alone: 0.7 -> 70
    platform_coding_index: 70,
    // intelligence weights: (2*0.75 + 1*0.61) / 3 = 2.11 / 3 = 0.70333 -> 70.3 (equal weights would give 68)
    platform_agentic_index: 70.3,
    // scicode 0.7 (w1), tau_banking 0.4/0.8 = 0.5 (w1): 1.2 / 2 = 0.6 -> 60
    platform_legal_index: 60,
    // ifbench is null
    platform_economics_index: null,
    // weights_access 0.5 (w2), data_pretrain_access 0.25 (w1): 1.25 / 3 = 0.41667 -> 41.7
    platform_openness_index: 41.7,
  });
});

computing('should leave only the composites whose components are all present', () => {
  const indices = computeIndices(tinyIndices(), scoreReader(modelTwo()));
  assert.equal(indices, {
    platform_intelligence_index: null,
    // scicode 0.9 -> 90
    platform_coding_index: 90,
    platform_agentic_index: null,
    // tau_banking missing
    platform_legal_index: null,
    platform_economics_index: null,
    platform_openness_index: null,
  });
});

computing('should clamp an intelligence component at its anchors', () => {
  const read = readerOf({
    '/evaluations/gdpval_platform_elo': 2000, // above 1600 -> 1
    '/evaluations/scicode': 0,
    '/omniscience_breakdown/total/omniscience': -100, // the lower anchor -> 0
  });
  // (2*1 + 3*0 + 1*0) / 6 = 0.3333 -> 33.3
  assert.is(computeIndices(tinyIndices(), read).platform_intelligence_index, 33.3);
});

computing.run();

const normalized = suite('normalizedScore');

normalized('should normalise a score by the intelligence component that reads it', () => {
  const defs = tinyIndices();
  // (1400 - 800) / 800 = 0.75
  assert.is(normalizedScore(defs, '/evaluations/gdpval_platform_elo', scoreReader(modelOne())), 0.75);
  // (22 + 100) / 200 = 0.61
  assert.is(normalizedScore(defs, '/omniscience_breakdown/total/omniscience', scoreReader(modelOne())), 0.61);
});

normalized('should round to 4 decimals', () => {
  // (1000.5 - 800) / 800 = 200.5 / 800 = 0.250625 -> 0.2506
  assert.is(normalizedScore(tinyIndices(), '/evaluations/gdpval_platform_elo', readerOf({ '/evaluations/gdpval_platform_elo': 1000.5 })), 0.2506);
});

normalized('should clamp to 0..1', () => {
  assert.is(normalizedScore(tinyIndices(), '/evaluations/gdpval_platform_elo', readerOf({ '/evaluations/gdpval_platform_elo': 1700 })), 1);
});

normalized('should be null when the score is missing', () => {
  assert.is(normalizedScore(tinyIndices(), '/evaluations/gdpval_platform_elo', scoreReader(modelTwo())), null);
});

normalized('should be null when no intelligence component reads the pointer', () => {
  // tau_banking is only a capability index component
  assert.is(normalizedScore(tinyIndices(), '/evaluations/tau_banking', scoreReader(modelOne())), null);
});

normalized.run();

const version = suite('publishedVersion');

version('should publish major.minor as a number', () => {
  assert.is(publishedVersion('4.3.0'), 4.3);
  assert.is(publishedVersion('12.1.0'), 12.1);
});

version('should never include the patch version', () => {
  assert.is(publishedVersion('4.3.7'), 4.3);
  assert.is(publishedVersion('5.0.2'), 5);
});

version.run();
