/**
 * A broken data folder, built as a maintainer builds it (`npm run build`: as a process once, for
 * its exit status and console, then the same command in-process): every problem at once, each
 * naming file, record and pointer, saying what was meant and what was found; the snapshot left
 * alone.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PACK_FILE } from '../../src/shared/manifest.ts';
import { builtTree, cli, command, editJson, editMeasurements, fixtureTree } from '../helpers/fixture-tree.ts';

const errors = suite('a broken dataset');

errors('should name file, record and pointer of every problem at once, exit non-zero and leave the snapshot alone', async () => {
  const tree = await builtTree();
  const before = readlinkSync(join(tree.out, 'current'));
  const packBefore = readFileSync(join(tree.out, before, PACK_FILE));
  const builds = readdirSync(tree.out).sort();
  let slugs: string[] = [];
  editJson(join(tree.data, 'language-models.json'), (models) => {
    models[1].evaluations.hle = 1.5;
    models[2].creator_id = '00000000-0000-4000-8000-000000000000';
    models[4].slug = models[3].slug;
    slugs = [models[1].slug, models[2].slug, models[3].slug];
  });
  editJson(join(tree.data, 'provider-endpoints.json'), (endpoints) => {
    endpoints[0].price_1m_input_tokens = -1;
  });
  const result = cli(tree);
  assert.is(result.status, 1);
  const stderr = result.stderr;
  assert.match(stderr, /current snapshot is unchanged/);
  assert.ok(stderr.includes(`language-models.json [${slugs[0]}] /1/evaluations/hle: must be <= 1`), stderr);
  assert.ok(stderr.includes(`language-models.json [${slugs[1]}] /2/creator_id: unknown model creator 00000000-0000-4000-8000-000000000000`), stderr);
  assert.ok(stderr.includes(`language-models.json [${slugs[2]}] /4/slug: duplicate slug (also at /3)`), stderr);
  assert.match(stderr, /provider-endpoints\.json \[[0-9a-f-]{36}\] \/0\/price_1m_input_tokens: must be >= 0/);
  assert.is(readlinkSync(join(tree.out, 'current')), before);
  assert.equal(readFileSync(join(tree.out, before, PACK_FILE)), packBefore);
  assert.equal(readdirSync(tree.out).sort(), builds, 'no new or temporary folder remains');
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should name the file of malformed JSON and of a missing dataset', async () => {
  const tree = fixtureTree();
  writeFileSync(join(tree.data, 'providers.json'), '[{"id": ');
  rmSync(join(tree.data, 'indices.json'));
  const result = await command(tree);
  assert.is(result.status, 1);
  assert.match(result.stderr, /providers\.json:1:9: not valid JSON: /);
  assert.match(result.stderr, /indices\.json \/: file is missing/);
  assert.not.ok(existsSync(join(tree.out, 'current')));
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should report a trailing comma once, with line, column and the line, and no knock-on reference errors', async () => {
  const tree = fixtureTree();
  const path = join(tree.data, 'language-models.json');
  const lines = readFileSync(path, 'utf8').split('\n');
  // The closing brace of the third model: a comma after the field before it.
  const close = lines.map((line, i) => (line === '  },' ? i : -1)).filter((i) => i >= 0)[2];
  lines[close - 1] += ',';
  writeFileSync(path, lines.join('\n'));
  const result = await command(tree);
  assert.is(result.status, 1);
  const [head, ...rest] = result.stderr.trimEnd().split('\n');
  assert.is(head, 'build failed: 1 problem in the datasets; the current snapshot is unchanged');
  assert.is(rest[0], `  language-models.json:${close + 1}:3: not valid JSON: Expected double-quoted property name`);
  assert.is(rest[1], `    ${close + 1} |   },`);
  assert.is(rest[2], `${' '.repeat(String(close + 1).length + 5)}|   ^`);
  assert.is(rest.length, 3, 'no "unknown language model" from the endpoints');
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should not check references into a missing file, and still check the others', async () => {
  const tree = fixtureTree();
  rmSync(join(tree.data, 'providers.json'));
  editJson(join(tree.data, 'provider-endpoints.json'), (endpoints) => {
    endpoints[0].model_id = '00000000-0000-4000-8000-000000000000';
  });
  const result = await command(tree);
  assert.is(result.status, 1);
  const problems = result.stderr.trimEnd().split('\n').slice(1);
  assert.equal(problems.map((line) => line.replace(/\[.*\] /, '')), ['  providers.json /: file is missing', '  provider-endpoints.json /0/model_id: unknown language model 00000000-0000-4000-8000-000000000000']);
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should reject measurements of an endpoint in another provider\'s file', async () => {
  const tree = fixtureTree();
  const files = readdirSync(join(tree.data, 'measurements'));
  const endpoints = JSON.parse(readFileSync(join(tree.data, 'provider-endpoints.json'), 'utf8'));
  // Move one file's provider id to another provider: its endpoints no longer belong to it.
  const { gunzipSync: gunzip, gzipSync } = await import('node:zlib');
  const path = join(tree.data, 'measurements', files[0]);
  const file = JSON.parse(gunzip(readFileSync(path)).toString());
  const other = endpoints.find((e: { provider_id: string }) => e.provider_id !== file.provider_id).provider_id;
  file.provider_id = other;
  writeFileSync(path, gzipSync(JSON.stringify(file)));
  const result = await command(tree);
  assert.is(result.status, 1);
  assert.match(result.stderr, new RegExp(`measurements/${files[0]} \\[endpoint [0-9a-f-]{36} \\w+\\] /series/0/endpoint_id: endpoint belongs to provider`));
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should say what a misspelt field meant, show a value of the wrong kind, and where a duplicate id was first', async () => {
  const tree = fixtureTree();
  let slugs: string[] = [];
  editJson(join(tree.data, 'language-models.json'), (models) => {
    models[0].creator_idd = models[0].creator_id;
    delete models[0].creator_id;
    models[1].context_window_tokens = '128k';
    models[3].id = models[2].id;
    slugs = models.slice(0, 4).map((m: { slug: string }) => m.slug);
  });
  const result = await command(tree);
  assert.is(result.status, 1);
  const stderr = result.stderr;
  assert.ok(stderr.includes(`language-models.json [${slugs[0]}] /0/creator_idd: unknown field; did you mean "creator_id"?`), stderr);
  assert.ok(stderr.includes(`language-models.json [${slugs[0]}] /0/creator_id: required field is missing ("creator_idd" is given: misspelt?)`), stderr);
  assert.ok(stderr.includes(`language-models.json [${slugs[1]}] /1/context_window_tokens: must be integer or null, got "128k"`), stderr);
  assert.match(stderr, new RegExp(`language-models\\.json \\[${slugs[3]}\\] /3/id: duplicate id [0-9a-f-]{36} \\(also at /2\\)`));
  rmSync(tree.root, { recursive: true, force: true });
});

errors('should report a measurement file\'s other problems along with its schema errors', async () => {
  const tree = fixtureTree();
  const name = editMeasurements(tree.data, 0, (file) => {
    const records = file.series[0].records;
    records[0].output_tokens_per_second = 'fast'; // the schema's
    records[2].timestamp = records[1].timestamp; // the check's: two records at one time
  });
  const result = await command(tree);
  assert.is(result.status, 1);
  assert.match(result.stderr, new RegExp(`measurements/${name} \\[endpoint [^\\]]+\\] /series/0/records/0/output_tokens_per_second: must be number or null, got "fast"`));
  assert.match(result.stderr, new RegExp(`measurements/${name} \\[endpoint [^\\]]+\\] /series/0/records/2/timestamp: two records of one series at the same time`));
  rmSync(tree.root, { recursive: true, force: true });
});

errors.run();
