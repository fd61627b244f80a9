/**
 * The README's runnable code, run as written: the curl lines against a server on the shipped
 * sample, the keys commands against a state folder beside it, and the TypeScript client saved
 * as client.ts outside the repository and run with tsx. Only what a reader fills in is filled
 * in: the key, the server's address and a key id.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_BUILD_OPTIONS, runBuild } from '../../build/build.ts';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { createKey } from '../../src/keys/changes.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { ROOT } from '../helpers/process.ts';

const run = promisify(execFile);
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The first fenced block of a language after a line of the README. */
function blockAfter(marker: string, language: string): string {
  const at = README.indexOf(marker);
  assert.ok(at >= 0, `README has ${marker}`);
  const open = README.indexOf(`\n\`\`\`${language}\n`, at);
  const close = README.indexOf('\n```\n', open + 1);
  return README.slice(open + language.length + 5, close + 1);
}

const root = mkdtempSync(join(tmpdir(), 'readme-'));
process.on('exit', () => rmSync(root, { recursive: true, force: true }));
let server: RunningServer;
const keys: Record<string, string> = {};
const snapshotDir = join(root, 'snapshot');

const readme = suite('the README, run as written');

readme.before(async () => {
  // The shipped sample, as `npm start` builds it (fast compression: the bytes do not matter here).
  await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: join(ROOT, 'data'), outDir: snapshotDir, levels: { gzip: 1, brotli: 1 }, log: () => {} });
  const stateDir = join(root, 'state');
  const providers = (JSON.parse(readFileSync(join(ROOT, 'data/providers.json'), 'utf8')) as { slug: string }[]).map((p) => p.slug);
  keys.commercial = createKey(stateDir, { tier: 'commercial', org: 'demo', user: 'c', grants: providers, critpt: true }).key;
  keys.pro = createKey(stateDir, { tier: 'pro', org: 'demo', user: 'p' }).key;
  server = await startServer({ ...DEFAULT_OPTIONS, port: 0, snapshotDir, stateDir, quiet: true }, { log: () => {} });
});

readme.after(() => server.close());

readme('should answer every curl line with data (the grading line: a valid batch, no grader)', async () => {
  const lines = blockAfter('### curl, one per route', 'sh').trimEnd().split('\n');
  assert.ok(lines[0].startsWith('KEY=bdk_...') && lines[1] === 'API=http://127.0.0.1:8080/api/v2', 'the block sets KEY and API first');
  const env = { PATH: process.env.PATH, KEY: keys.commercial, API: `${server.url}/api/v2` };
  const curls = lines.slice(2);
  assert.ok(curls.length >= 17 && curls.every((line) => line.startsWith('curl ')), 'the rest are curl lines');
  for (const line of curls) {
    const { stdout } = await run('sh', ['-c', line], { cwd: ROOT, env, maxBuffer: 64 * 1024 * 1024 });
    const body = JSON.parse(stdout);
    if (line.includes('critpt/evaluate')) {
      assert.match(body.error, /the batch is valid/, line);
      continue;
    }
    const data = body.data;
    const filled = Array.isArray(data) ? data.length > 0 : Object.values(data.providers ?? data.models ?? data).some((v) => v !== null && (!Array.isArray(v) || v.length > 0));
    assert.ok(filled, `${line}: ${stdout.slice(0, 300)}`);
    if (line.includes('/performance')) {
      const series = (data.providers ?? data.models) as { series: Record<string, unknown>[] }[];
      assert.ok(series.some((s) => JSON.stringify(s).match(/"median_output_tokens_per_second":\d/)), `${line} shows measured points`);
    }
  }
});

readme('should run every keys command of the Keys section, filling in only the key id', async () => {
  const lines = blockAfter('### Keys', 'sh').trimEnd().split('\n');
  const env = { ...process.env, STATE_DIR: join(root, 'state-keys'), SNAPSHOT_DIR: snapshotDir };
  let id = '';
  for (const line of lines) {
    assert.ok(line.startsWith('npm run -s keys -- '), line);
    const { stdout } = await run('sh', ['-c', line.replaceAll(' ID', ` ${id}`)], { cwd: ROOT, env });
    if (line.includes('--json') && line.includes('create')) id = JSON.parse(stdout).id;
  }
  assert.match(id, /^key_[0-9a-f]{12}$/);
});

readme('should run the TypeScript client, saved as client.ts outside the repository, with tsx', async () => {
  const folder = mkdtempSync(join(root, 'client-'));
  writeFileSync(join(folder, 'client.ts'), blockAfter('**A complete client**', 'ts'));
  const tsx = join(ROOT, 'node_modules/tsx/dist/cli.mjs');
  const { stdout } = await run(process.execPath, [tsx, 'client.ts'], { cwd: folder, env: { PATH: process.env.PATH, API_KEY: keys.pro, API_BASE: `${server.url}/api/v2` } });
  assert.is(stdout, '320 models\n');
});

readme('should link nothing outside the repository', () => {
  const links = [...README.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]);
  for (const link of links) assert.not.match(link, /^\.\.\//, link);
  assert.not.ok(README.includes('../shared'), 'no ../shared');
});

readme.run();
