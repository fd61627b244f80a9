import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { applyShape, diffShape, fieldChanges, type Item } from '../../../build/history/diff.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { changesItem } from '../../../build/history/changes-parts.ts';
import { extendHistory, SHAPES, type BuildRecord, type States } from '../../../build/history/history.ts';
import { sectionText } from '../../../build/history/sectioned.ts';
import { readStoredHistory, type Continued, type NextHistory } from '../../../build/history/stored.ts';
import { historyTexts, writeHistory } from '../../../build/history/write-history.ts';
import { PackWriter } from '../../../build/pack/pack.ts';
import { PACK_FILE, type Manifest } from '../../../src/shared/manifest.ts';
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

/** Write `next` into a pack of its own, as a build does, and read it back as the next build does. */
async function storedAndReadBack(next: NextHistory, buildId: string): Promise<Continued> {
  const dir = mkdtempSync(join(tmpdir(), 'bda-history-'));
  try {
    const pack = new PackWriter(join(dir, PACK_FILE), { gzip: 6, brotli: 6 }, null);
    const texts = historyTexts(next);
    const parts = await writeHistory(pack, next, texts);
    await pack.finish();
    return readStoredHistory(dir, { build_id: buildId, history: parts() } as Manifest)!;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

history('should keep each remembered build\'s changes and each model\'s points, as stored and read back, forgetting the oldest past the retention', async () => {
  const next = seededRandom(7);
  let id = 0;
  const fresh = () => `m${++id}`;
  let list: Item[] = Array.from({ length: 10 }, () => model(fresh()));
  let continued: Continued | null = null;
  const served: { buildId: string; asOf: string; items: Item[]; record: BuildRecord }[] = [];
  for (let n = 1; n <= 8; n++) {
    const buildId = `2026110${n}T000000Z-0000000${n}`;
    const asOf = new Date(Date.UTC(2026, 10, n));
    const { history: h, record, forgotten } = extendHistory(continued?.history ?? null, { buildId, asOf, states: statesOf(list) }, 5);
    assert.is(record.previous_build_id, served.at(-1)?.buildId ?? null);
    served.push({ buildId, asOf: asOf.toISOString(), items: list, record });
    continued = await storedAndReadBack({ history: h, record, carried: continued?.changes.slice(forgotten) ?? [] }, buildId);
    const remembered = served.slice(-5);
    assert.equal(continued.history.builds.map((b) => b.build_id), remembered.map((b) => b.buildId));
    assert.is(continued.history.before, n > 5 ? served[n - 6]!.buildId : null);
    assert.equal(continued.history.latest.free, list);
    // Each remembered build's changes, exactly as that build recorded them.
    continued.changes.forEach(({ compressed, sections }, i) => {
      const text = brotliDecompressSync(compressed);
      for (const shape of SHAPES)
        assert.equal(JSON.parse(sectionText(text, sections[shape]!)), changesItem(remembered[i]!.record, shape));
    });
    // A model's points: the remembered builds at which its item differed from the one before, with the item then.
    for (const item of list) {
      const points = remembered.flatMap((build) => {
        const at = served.indexOf(build);
        const now = build.items.find((m) => m.id === item.id);
        const before = at > 0 ? served[at - 1]!.items.find((m) => m.id === item.id) : undefined;
        const moved = now && JSON.stringify(now) !== JSON.stringify(before);
        return moved ? [{ build_id: build.buildId, data_as_of: build.asOf, model: now }] : [];
      });
      assert.equal(continued.history.models.medium.get(item.id), { id: item.id, slug: item.slug, name: item.name, points });
    }
    list = mutate(list, next, fresh).items;
  }
  assert.is(continued!.history.builds[0]!.previous_build_id, served[2]!.buildId, 'the oldest remembered build still names the one before it');
});

history.run();
