import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadDataset } from '../../build/load/datasets.ts';
import { run } from '../../scripts/import-legacy.ts';
import { get } from '../helpers/http.ts';
import { caught, ROOT } from '../helpers/process.ts';
import { FIXTURES, startTestServer } from '../helpers/server.ts';
import { until } from '../helpers/wait.ts';

const REFERENCE = new URL('../../../shared/reference/legacy-data-llms-models-2026-07-31.json', import.meta.url).pathname;

/** `npm run import:legacy` as a process: its exit status and console (one success, one failure). */
function importer(file: string, dataDir: string, ...extra: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/import-legacy.ts', file, '--data', dataDir, ...extra], { cwd: ROOT, encoding: 'utf8' });
}

/** The same command in-process (scripts/import-legacy.ts's run): what the process would print, for a second less CPU a run. */
function importIn(file: string, dataDir: string, ...extra: string[]) {
  return caught((io) => run([file, '--data', dataDir, ...extra], io));
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'import-'));
}

/** Every file of a folder with its bytes, to prove nothing was written. */
function snapshotOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(path, readFileSync(path).toString('base64'));
    }
  };
  if (existsSync(dir)) walk(dir);
  return out;
}

const item = (id: string, slug: string, fields: Record<string, unknown> = {}) => ({
  id,
  name: slug.toUpperCase(),
  slug,
  release_date: '2026-05-01',
  model_creator: { id: '11111111-1111-4111-8111-111111111111', name: 'Tiny Labs', slug: 'tiny-labs' },
  evaluations: { artificial_analysis_intelligence_index: 40.5, artificial_analysis_coding_index: 30.1, artificial_analysis_math_index: 70, gpqa: 0.6, hle: 0.1, mmlu_pro: 0.8, tau2: 0.5, lcr: 0.4, some_future_eval: 0.3 },
  pricing: { price_1m_blended_3_to_1: 1.75, price_1m_input_tokens: 1, price_1m_output_tokens: 4 },
  median_output_tokens_per_second: 120.5,
  median_time_to_first_token_seconds: 0.4,
  median_time_to_first_answer_token: 2.5,
  ...fields,
});

const SMALL = {
  status: 200,
  prompt_options: { parallel_queries: 1, prompt_length: 1000 },
  data: [
    item('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', 'tiny-1'),
    item('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', 'tiny-2', { median_output_tokens_per_second: 0, median_time_to_first_token_seconds: 0, median_time_to_first_answer_token: 0 }),
    item('cccccccc-cccc-4ccc-8ccc-cccccccccccc', 'tiny-3', { pricing: { price_1m_blended_3_to_1: 0, price_1m_input_tokens: 0, price_1m_output_tokens: 0 }, median_output_tokens_per_second: 0, median_time_to_first_token_seconds: 0, median_time_to_first_answer_token: 0 }),
  ],
};

const imports = suite('importing a legacy body');

imports('should write loadable datasets with zeros as null, published indices and mapped evaluations', () => {
  const dir = tempDir();
  const file = join(dir, 'legacy.json');
  writeFileSync(file, JSON.stringify(SMALL));
  const data = join(dir, 'data');
  const result = importer(file, data);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /models\s+3 added/);
  assert.match(result.stdout, /skipped some_future_eval: no counterpart here \(3 values\)/);
  assert.match(result.stdout, /records \(prompt type medium\) dated 2026-05-01T12:00:00\.000Z: the dump's date 2026-05-01/);
  assert.ok(result.stdout.endsWith(`now run: npm run build -- --data ${data}\n`), 'the hint carries the folder imported into');
  const { dataset } = loadDataset(data);
  const tiny1 = dataset.models.find((m) => m.slug === 'tiny-1')!;
  assert.equal(tiny1.published_indices, { platform_intelligence_index: 40.5, platform_coding_index: 30.1, platform_math_index: 70 });
  assert.equal(tiny1.evaluations, { gpqa_diamond: 0.6, hle: 0.1, mmlu_pro: 0.8, tau2_telecom: 0.5, platform_lcr: 0.4 });
  assert.is(dataset.endpoints.length, 2, 'the unpriced, unmeasured model gets no endpoint');
  const tiny2 = dataset.endpoints.find((e) => e.model_id === SMALL.data[1].id)!;
  assert.is(tiny2.price_1m_input_tokens, 1);
  assert.equal(dataset.series.map((s) => s.endpoint_id), [dataset.endpoints.find((e) => e.model_id === SMALL.data[0].id)!.id], 'only the measured model has records');
  const again = importIn(file, data);
  assert.match(again.stdout, /models\s+0 added, 0 changed, 3 unchanged/);
  rmSync(dir, { recursive: true, force: true });
});

imports('should never serve a zero the dump gave for an unmeasured figure: a successful record needs all three, so the model gets none', async () => {
  const dir = tempDir();
  try {
    const file = join(dir, 'legacy.json');
    const partly = item('dddddddd-dddd-4ddd-8ddd-dddddddddddd', 'tiny-4', { median_output_tokens_per_second: 90.5, median_time_to_first_token_seconds: 0, median_time_to_first_answer_token: 1.5 });
    writeFileSync(file, JSON.stringify({ ...SMALL, data: [partly] }));
    const data = join(dir, 'data');
    assert.is(importIn(file, data).status, 0);
    const t = await startTestServer({ fixture: data, keys: { free: { tier: 'free', org: 'x' } } });
    try {
      const [served] = (await get(t.url, '/api/v2/data/llms/models', t.keys.free)).json().data;
      assert.equal([served.median_output_tokens_per_second, served.median_time_to_first_token_seconds, served.median_time_to_first_answer_token], [null, null, null]);
      assert.is(served.pricing.price_1m_input_tokens, 1, 'its prices still come through');
    } finally {
      await t.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

imports('should merge into an existing folder, keeping what was there', () => {
  const dir = tempDir();
  const file = join(dir, 'legacy.json');
  writeFileSync(file, JSON.stringify(SMALL));
  const data = join(dir, 'data');
  cpSync(join(FIXTURES, 'sample-small'), data, { recursive: true });
  const before = loadDataset(data).dataset;
  assert.is(importIn(file, data).status, 0);
  const after = loadDataset(data).dataset;
  assert.is(after.models.length, before.models.length + 3);
  assert.is(after.creators.length, before.creators.length + 1);
  for (const m of before.models) assert.ok(after.models.some((n) => n.id === m.id && n.name === m.name));
  rmSync(dir, { recursive: true, force: true });
});

imports('should refuse a malformed body naming record and field, and write nothing', () => {
  const dir = tempDir();
  const data = join(dir, 'data');
  cpSync(join(FIXTURES, 'sample-small'), data, { recursive: true });
  const before = snapshotOf(data);
  const broken = structuredClone(SMALL) as { data: Record<string, any>[] };
  broken.data[1].evaluations.hle = 'high';
  delete broken.data[2].id;
  const file = join(dir, 'broken.json');
  writeFileSync(file, JSON.stringify(broken));
  const result = importer(file, data);
  assert.is(result.status, 1);
  assert.match(result.stderr, /\[tiny-2\] \/data\/1\/evaluations\/hle: must be number or null, got "high"/);
  assert.match(result.stderr, /\[tiny-3\] \/data\/2\/id: required field is missing/);
  writeFileSync(file, '{"data": [');
  const bad = importIn(file, data);
  assert.is(bad.status, 1);
  assert.match(bad.stderr, /cannot read it as JSON/);
  assert.equal(snapshotOf(data), before);
  rmSync(dir, { recursive: true, force: true });
});

imports('should write nothing on a dry run', () => {
  const dir = tempDir();
  const file = join(dir, 'legacy.json');
  writeFileSync(file, JSON.stringify(SMALL));
  const result = importIn(file, join(dir, 'data'), '--dry-run');
  assert.is(result.status, 0);
  assert.match(result.stdout, /would import 3 models/);
  assert.not.ok(existsSync(join(dir, 'data')));
  rmSync(dir, { recursive: true, force: true });
});

imports.run();

const roundTrip = suite('round trip of the reference legacy body');

/** Served legacy evaluation name -> the upstream key of the same value, in a real body's order. */
const LEGACY_EVALUATION_KEYS: [string, string][] = [
  ['platform_intelligence_index', 'artificial_analysis_intelligence_index'],
  ['platform_coding_index', 'artificial_analysis_coding_index'],
  ['platform_math_index', 'artificial_analysis_math_index'],
  ['mmlu_pro', 'mmlu_pro'],
  ['gpqa', 'gpqa'],
  ['hle', 'hle'],
  ['livecodebench', 'livecodebench'],
  ['scicode', 'scicode'],
  ['math_500', 'math_500'],
  ['aime', 'aime'],
  ['aime_25', 'aime_25'],
  ['ifbench', 'ifbench'],
  ['lcr', 'lcr'],
  ['terminalbench_hard', 'terminalbench_hard'],
  ['terminalbench_v2_1', 'terminalbench_v2_1'],
  ['tau2', 'tau2'],
  ['tau_banking', 'tau_banking'],
];

type Item = Record<string, any>;

/** Build and serve a data folder, and check every item of a dump against the legacy route. */
async function assertServedAsDumped(dataDir: string, dump: Item[], expectedModels: number): Promise<void> {
  const t = await startTestServer({ fixture: dataDir, keys: { free: { tier: 'free', org: 'x' } } });
  try {
    await assertServing(t.url, t.keys.free, dump, expectedModels);
  } finally {
    await t.close();
  }
}

/** Check every item of a dump against the legacy route a server serves now. */
async function assertServing(url: string, key: string, dump: Item[], expectedModels: number): Promise<void> {
  {
    const served = new Map<string, Item>((await get(url, '/api/v2/data/llms/models', key)).json().data.map((m: Item) => [m.id, m]));
    assert.is(served.size, expectedModels);
    const orNull = (v: number) => (v === 0 ? null : v);
    let measured = 0;
    for (const o of dump) {
      const s = served.get(o.id)!;
      assert.ok(s, o.slug);
      assert.equal([s.name, s.slug, s.release_date, s.model_creator], [o.name, o.slug, o.release_date, o.model_creator], o.slug);
      assert.equal(Object.keys(s.evaluations), LEGACY_EVALUATION_KEYS.map(([name]) => name));
      for (const [name, upstream] of LEGACY_EVALUATION_KEYS) assert.is(s.evaluations[name], o.evaluations[upstream] ?? null, `${o.slug} ${name}`);
      assert.is(s.pricing.price_1m_input_tokens, orNull(o.pricing.price_1m_input_tokens), o.slug);
      assert.is(s.pricing.price_1m_output_tokens, orNull(o.pricing.price_1m_output_tokens), o.slug);
      if (s.pricing.price_1m_blended_3_to_1 === null) assert.is(orNull(o.pricing.price_1m_blended_3_to_1), null, o.slug);
      else assert.ok(Math.abs(s.pricing.price_1m_blended_3_to_1 - o.pricing.price_1m_blended_3_to_1) <= 0.01, o.slug);
      assert.is(s.median_output_tokens_per_second, orNull(o.median_output_tokens_per_second), o.slug);
      assert.is(s.median_time_to_first_token_seconds, orNull(o.median_time_to_first_token_seconds), o.slug);
      assert.is(s.median_time_to_first_answer_token, orNull(o.median_time_to_first_answer_token), o.slug);
      if (s.median_output_tokens_per_second !== null) measured++;
    }
    assert.ok(measured > 100, `${measured} models served with medians`);
  }
}

/** A later dump of the same models: some renamed, repriced, re-measured, unmeasured or gone. */
function newerDump(first: Item[]): Item[] {
  return first.slice(0, -10).map((m, i) => {
    const next = structuredClone(m);
    if (i % 7 === 0) next.name = `${m.name} (rev)`;
    if (i % 3 === 0 && m.median_output_tokens_per_second > 0) next.median_output_tokens_per_second = Math.round(m.median_output_tokens_per_second * 110) / 100;
    if (i % 4 === 0 && m.pricing.price_1m_input_tokens > 0) {
      next.pricing.price_1m_input_tokens = m.pricing.price_1m_input_tokens * 2;
      next.pricing.price_1m_blended_3_to_1 = (3 * next.pricing.price_1m_input_tokens + m.pricing.price_1m_output_tokens) / 4;
    }
    if (i % 5 === 0) Object.assign(next, { median_output_tokens_per_second: 0, median_time_to_first_token_seconds: 0, median_time_to_first_answer_token: 0 });
    if (i % 11 === 0) next.pricing = { price_1m_blended_3_to_1: 0, price_1m_input_tokens: 0, price_1m_output_tokens: 0 };
    if (i % 13 === 0) next.evaluations.artificial_analysis_math_index = 12.5;
    return next;
  });
}

if (!existsSync(REFERENCE)) {
  roundTrip.skip(`should serve back every model of the reference body (skipped: ${REFERENCE} not found)`, () => {});
  console.log(`skipped: the reference legacy body is not at ${REFERENCE}`);
} else {
  const reference = () => JSON.parse(readFileSync(REFERENCE, 'utf8')) as { data: Item[] };

  roundTrip('should serve back every model, evaluation, price and median of the reference body imported into an empty folder, and of a newer dump over it, with a build per dump in the history of changes', async () => {
    const dir = tempDir();
    const first = reference();
    assert.is(importIn(REFERENCE, join(dir, 'imported')).status, 0);
    // The server builds its own copy of the folder; the newer dump goes into that copy, rebuilt
    // into the same snapshot folder, as data/README.md says to seed the history from old dumps.
    const t = await startTestServer({ fixture: join(dir, 'imported'), keys: { free: { tier: 'free', org: 'x' } } });
    try {
      await assertServing(t.url, t.keys.free, first.data, first.data.length);
      const firstBuild = (await get(t.url, '/readyz')).json().snapshot;
      const second = { ...first, data: newerDump(first.data) };
      const file = join(dir, 'newer.json');
      writeFileSync(file, JSON.stringify(second));
      const result = importIn(file, t.dataDir, '--as-of', '2026-08-05');
      assert.is(result.status, 0, result.stderr);
      assert.match(result.stdout, /dated 2026-08-05T12:00:00\.000Z: the dump's date/);
      const built = await t.rebuild(false);
      await until(async () => (await get(t.url, '/readyz')).json().snapshot === built.buildId, 'the server serves the newer dump');
      await assertServing(t.url, t.keys.free, second.data, first.data.length);
      // One build per dump, each dated by its dump; the changes between them are the dumps' differences.
      const [change, ...more] = (await get(t.url, `/api/v2/changes?since=${firstBuild}`, t.keys.free)).json().data;
      assert.equal(more, []);
      assert.equal([change.previous_build_id, change.build_id, change.data_as_of], [firstBuild, built.buildId, '2026-08-05T12:00:00.000Z']);
      assert.ok(firstBuild.startsWith('20260731T120000Z-'), firstBuild);
      const before = new Map(first.data.map((m) => [m.id, m]));
      const changed = new Map<string, Item>(change.changed.map((m: Item) => [m.id, m]));
      const differs = (a: Item | undefined, b: Item) => JSON.stringify(a) !== JSON.stringify(b);
      const modified = new Set([...second.data.filter((m) => differs(before.get(m.id), m)).map((m) => m.id), ...first.data.slice(-10).map((m) => m.id)]);
      for (const id of changed.keys()) assert.ok(modified.has(id), `${changed.get(id)!.slug} changed though neither dump moved it`);
      for (const m of second.data.filter((m) => m.name !== before.get(m.id)!.name))
        assert.equal(changed.get(m.id)?.changes.find((c: Item) => c.field === 'name'), { field: 'name', from: before.get(m.id)!.name, to: m.name }, m.slug);
      for (const m of second.data.filter((m) => m.pricing.price_1m_input_tokens !== before.get(m.id)!.pricing.price_1m_input_tokens))
        assert.ok(changed.get(m.id)?.changes.some((c: Item) => c.field === 'pricing.price_1m_input_tokens'), `${m.slug}: its input price`);
      assert.equal([change.added, change.removed], [[], []], 'the importer merges by id: a model a later dump leaves out stays');
    } finally {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Into a folder of the shipped data's shape whose measurements are newer than the dump: the small
  // sample rather than data/ itself, whose 611,100 records made this build most of the file's
  // 116 s of CI (the full sample's build is tested once, by the run's shared build of it).
  roundTrip('should serve back every model of the reference body imported into a sample data folder with newer measurements, beside its models', async () => {
    const dir = tempDir();
    try {
      const data = join(dir, 'shipped');
      cpSync(join(FIXTURES, 'sample-small'), data, { recursive: true });
      const sampleModels = loadDataset(data).dataset.models.length;
      const result = importIn(REFERENCE, data);
      assert.is(result.status, 0, result.stderr);
      assert.match(result.stdout, /dated \S+: the newest measurement already in/);
      const first = reference();
      await assertServedAsDumped(data, first.data, sampleModels + first.data.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

roundTrip.run();
