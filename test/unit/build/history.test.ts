import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyShape, diffShape, fieldChanges, type Item } from '../../../build/history/diff.ts';
import { extendHistory, replay, SHAPES, type History, type States } from '../../../build/history/history.ts';
import { seededRandom } from '../../helpers/random.ts';

const diff = suite('what changed between two lists');

const model = (id: string, fields: Record<string, unknown> = {}): Item => ({
  id,
  name: `Model ${id}`,
  slug: `model-${id}`,
  evaluations: { index: 40, hle: 0.1 },
  pricing: { input: 1, output: 2 },
  parameters: { total: 7, active: null },
  modalities: ['text'],
  ...fields,
});

diff('should name each changed leaf by its dotted path, in the newer item\'s order', () => {
  const before = model('a');
  const after = model('a', { name: 'Renamed', evaluations: { index: 41, hle: 0.1 }, modalities: ['text', 'image'] });
  assert.equal(fieldChanges(before, after), [
    { field: 'name', from: 'Model a', to: 'Renamed' },
    { field: 'evaluations.index', from: 40, to: 41 },
    { field: 'modalities', from: ['text'], to: ['text', 'image'] },
  ]);
});

diff('should report an object that became null, or null that became an object, as one change', () => {
  assert.equal(fieldChanges(model('a'), model('a', { parameters: null })), [
    { field: 'parameters', from: { total: 7, active: null }, to: null },
  ]);
  assert.equal(fieldChanges(model('a', { parameters: null }), model('a')), [
    { field: 'parameters', from: null, to: { total: 7, active: null } },
  ]);
});

diff('should list added models whole, removed ones by reference, and only models that changed', () => {
  const changes = diffShape([model('a'), model('b'), model('c')], [model('a'), model('c', { name: 'C' }), model('d')]);
  assert.equal(changes.added, [model('d')]);
  assert.equal(changes.removed, [{ id: 'b', slug: 'model-b', name: 'Model b' }]);
  assert.equal(changes.changed, [{ id: 'c', slug: 'model-c', name: 'C', changes: [{ field: 'name', from: 'Model c', to: 'C' }] }]);
  assert.equal(diffShape([model('a')], [model('a')]), { added: [], removed: [], changed: [] });
});


/** The next list: some fields changed (leaves, nulled objects, arrays), some models gone, some new, the order shuffled a little. */
function mutate(items: readonly Item[], next: () => number, fresh: () => string): { items: Item[]; fieldEdits: number } {
  let fieldEdits = 0;
  const out: Item[] = [];
  for (const item of items) {
    if (next() < 0.05) continue; // removed
    const copy = structuredClone(item) as Item & Record<string, any>;
    for (let n = Math.floor(next() * 4); n > 0; n--, fieldEdits++) {
      const pick = next();
      if (pick < 0.4) copy.evaluations = { ...copy.evaluations, index: Math.round(next() * 1000) / 10 };
      else if (pick < 0.6) copy.pricing = copy.pricing === null ? { input: 1, output: 2 } : next() < 0.3 ? null : { ...copy.pricing, output: Math.round(next() * 100) / 10 };
      else if (pick < 0.75) copy.parameters = copy.parameters === null ? { total: Math.round(next() * 100), active: null } : null;
      else if (pick < 0.9) copy.modalities = next() < 0.5 ? ['text'] : ['text', 'image'];
      else copy.name = `Model ${copy.id} v${Math.floor(next() * 9)}`;
    }
    out.push(copy);
  }
  for (let n = Math.floor(next() * 3); n > 0; n--) out.splice(Math.floor(next() * (out.length + 1)), 0, model(fresh()));
  if (out.length > 1 && next() < 0.3) {
    const i = Math.floor(next() * out.length);
    out.push(...out.splice(i, 1));
  }
  return { items: out, fieldEdits };
}

diff('should replay every list from the changes, exactly, over random sequences (at least 1,000 field changes)', () => {
  const next = seededRandom(20261129);
  let id = 0;
  const fresh = () => `m${++id}`;
  let list: Item[] = Array.from({ length: 40 }, () => model(fresh()));
  let edits = 0;
  for (let step = 0; step < 60; step++) {
    const { items, fieldEdits } = mutate(list, next, fresh);
    edits += fieldEdits;
    const changes = diffShape(list, items);
    assert.equal(applyShape(list, changes, items.map((item) => item.id)), items, `step ${step}`);
    list = items;
  }
  assert.ok(edits >= 1000, `${edits} field changes`);
});

diff.run();

const history = suite('the history a build carries');

const statesOf = (items: Item[]): States => Object.fromEntries(SHAPES.map((shape) => [shape, items])) as unknown as States;

history('should hold each build\'s record against the one before, and fold the oldest into its base past the retention', () => {
  const next = seededRandom(7);
  let id = 0;
  const fresh = () => `m${++id}`;
  let list: Item[] = Array.from({ length: 10 }, () => model(fresh()));
  let carried: History | null = null;
  const served: { buildId: string; items: Item[] }[] = [];
  for (let n = 1; n <= 8; n++) {
    const buildId = `2026110${n}T000000Z-0000000${n}`;
    const { history: h, record } = extendHistory(carried, { buildId, asOf: new Date(Date.UTC(2026, 10, n)), states: statesOf(list) }, 5);
    assert.is(record.previous_build_id, served.at(-1)?.buildId ?? null);
    served.push({ buildId, items: list });
    carried = JSON.parse(JSON.stringify(h)) as History; // as stored and read back
    assert.is(carried.builds.length, Math.min(n, 5));
    assert.is(carried.base.build_id, n > 5 ? served[n - 6]!.buildId : null);
    // Replaying the history gives each remembered build's lists exactly.
    const replayed = [...replay(carried)];
    replayed.forEach(({ record: r, states }, i) => {
      const expected = served[served.length - replayed.length + i]!;
      assert.is(r.build_id, expected.buildId);
      assert.equal(states.free, expected.items);
    });
    list = mutate(list, next, fresh).items;
  }
  assert.is(carried!.builds[0]!.previous_build_id, served[2]!.buildId, 'the oldest remembered build still names the one before it');
});

history.run();
