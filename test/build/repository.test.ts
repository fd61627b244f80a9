/** Invariants of the committed sample in data/: it loads, it is at scale, and it is complete. */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadDataset } from '../../build/load/datasets.ts';
import { DEFAULT_OPTIONS, generateSample } from '../../scripts/generate-sample.ts';
import { PROMPT_TYPES } from '../../src/shared/routes.ts';
import { ROOT } from '../helpers/process.ts';

const DATA = join(ROOT, 'data');
const DAY = 86_400_000;
const { dataset } = loadDataset(DATA);

function folderBytes(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? folderBytes(join(dir, e.name)) : statSync(join(dir, e.name)).size), 0);
}

const sample = suite('the committed sample');

sample('should meet the scale of the issue', () => {
  assert.ok(dataset.models.length >= 300, `${dataset.models.length} models`);
  assert.ok(dataset.creators.length >= 40, `${dataset.creators.length} creators`);
  assert.ok(dataset.providers.length >= 40, `${dataset.providers.length} providers`);
  assert.ok(dataset.endpoints.length >= 600, `${dataset.endpoints.length} endpoints`);
});

/** Every file below a folder, by path relative to it. */
function filesOf(dir: string, root = dir): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) for (const [k, v] of filesOf(path, root)) out.set(k, v);
    else out.set(relative(root, path), readFileSync(path));
  }
  return out;
}

sample('should be exactly what the generator makes with its defaults, byte for byte', () => {
  const out = mkdtempSync(join(tmpdir(), 'sample-'));
  try {
    generateSample({ ...DEFAULT_OPTIONS, out });
    const generated = filesOf(out);
    const committed = filesOf(DATA);
    // Written by hand: the data README and the CritPt problem set.
    for (const handWritten of ['README.md', 'critpt-problems.json']) assert.ok(committed.delete(handWritten), handWritten);
    assert.equal([...generated.keys()].sort(), [...committed.keys()].sort());
    for (const [path, bytes] of committed) assert.ok(bytes.equals(generated.get(path)!), `${path} differs from the generator's output`);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

sample('should stay under 30 MB', () => {
  assert.ok(folderBytes(DATA) < 30 * 1024 * 1024, `${folderBytes(DATA)} bytes`);
});

sample('should resolve every reference', () => {
  const creators = new Set(dataset.creators.map((c) => c.id));
  const models = new Set(dataset.models.map((m) => m.id));
  const providers = new Set(dataset.providers.map((p) => p.id));
  const endpoints = new Set(dataset.endpoints.map((e) => e.id));
  for (const m of dataset.models) assert.ok(creators.has(m.creator_id), m.slug);
  for (const e of dataset.endpoints) assert.ok(models.has(e.model_id) && providers.has(e.provider_id), e.id);
  for (const s of dataset.series) assert.ok(endpoints.has(s.endpoint_id), s.endpoint_id);
});

sample('should measure every endpoint and prompt type on each of the last 90 days, more often in the last 30', () => {
  let newest = 0;
  for (const s of dataset.series) newest = Math.max(newest, s.columns.time[s.columns.length - 1] ?? 0);
  const lastDay = Math.floor(newest / DAY);
  const byEndpoint = new Map(dataset.series.map((s) => [`${s.endpoint_id} ${s.prompt_type}`, s.columns]));
  for (const endpoint of dataset.endpoints) {
    for (const promptType of PROMPT_TYPES) {
      const records = byEndpoint.get(`${endpoint.id} ${promptType}`);
      assert.ok(records, `${endpoint.id} ${promptType} has no series`);
      const perDay = new Map<number, number>();
      for (const time of records.time) {
        const day = Math.floor(time / DAY);
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
      }
      for (let d = lastDay - 89; d <= lastDay; d++) assert.ok((perDay.get(d) ?? 0) >= 1, `${endpoint.id} ${promptType}: no record on day ${d}`);
      const recent = [...Array(30).keys()].reduce((n, i) => n + (perDay.get(lastDay - i) ?? 0), 0) / 30;
      const older = [...Array(60).keys()].reduce((n, i) => n + (perDay.get(lastDay - 30 - i) ?? 0), 0) / 60;
      assert.ok(recent > older, `${endpoint.id} ${promptType}: ${recent} a day recently vs ${older} before`);
    }
  }
});

sample('should hold a realistic share of nulls', () => {
  const unpriced = dataset.endpoints.filter((e) => e.price_1m_input_tokens === null).length;
  const noEndpoint = dataset.models.filter((m) => !dataset.endpoints.some((e) => e.model_id === m.id)).length;
  const unevaluated = dataset.models.filter((m) => m.evaluations.hle == null).length;
  const noCountry = dataset.providers.filter((p) => p.country === null).length;
  for (const [what, n, total] of [['unpriced endpoints', unpriced, dataset.endpoints.length], ['models without a provider', noEndpoint, dataset.models.length], ['models without HLE', unevaluated, dataset.models.length], ['providers without country', noCountry, dataset.providers.length]] as const) {
    assert.ok(n > 0 && n < total / 2, `${what}: ${n} of ${total}`);
  }
});

sample.run();
