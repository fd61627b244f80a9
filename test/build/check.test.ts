/**
 * `npm run build -- --check`, run as a maintainer runs it (as a process once, then the same
 * command in-process): every problem of every file in one run, nothing written; and the data date, where it came from, and a warning when one
 * provider's measurements alone move it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { command, editJson, editMeasurements, fixtureTree, type Tree } from '../helpers/fixture-tree.ts';
import { ROOT } from '../helpers/process.ts';

/** `npm run build -- --check` as a process: the exit status and the console of a failed check. */
function checkProcess(tree: Tree, ...extra: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'build/main.ts', '--check', '--data', tree.data, '--out', tree.out, ...extra], { cwd: ROOT, encoding: 'utf8' });
}

/** The same command in-process (build/main.ts's run): what the process would print, for 1-2 s less CPU a run. */
const check = (tree: Tree, ...extra: string[]) => command(tree, '--check', ...extra);

const checks = suite('build --check');

checks('should pass sound data, say what it checked and which build it would make, and write nothing', async () => {
  const tree = fixtureTree();
  const result = await check(tree);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.stdout, /^check passed: \d+ files, \d+ models, \d+ providers, \d+ answers held to their schemas; a build would be \d{8}T\d{6}Z-[0-9a-f]{8}; nothing written/m);
  assert.not.ok(existsSync(tree.out), 'no snapshot folder');
  rmSync(tree.root, { recursive: true, force: true });
});

checks('should report every problem of every file in one run, and still write nothing', () => {
  const tree = fixtureTree();
  editJson(join(tree.data, 'language-models.json'), (models) => {
    models[0].release_date = 'soon';
    models[1].creator_id = '00000000-0000-4000-8000-000000000000';
  });
  editJson(join(tree.data, 'providers.json'), (providers) => (providers[0].slug = providers[1].slug));
  const file = editMeasurements(tree.data, 0, (m) => (m.series[0].records[0].success = 'yes'));
  const result = checkProcess(tree);
  assert.is(result.status, 1);
  const lines = result.stderr.trimEnd().split('\n');
  assert.match(lines[0], /^check failed: \d+ problems in the datasets$/);
  const problems = lines.slice(1).join('\n');
  assert.match(problems, /language-models\.json \[[^\]]+\] \/0\/release_date: must match format "date", got "soon"/);
  assert.match(problems, /language-models\.json \[[^\]]+\] \/1\/creator_id: unknown model creator 00000000-0000-4000-8000-000000000000/);
  assert.match(problems, /providers\.json \[[^\]]+\] \/1\/slug: duplicate slug \(also at \/0\)/);
  assert.match(problems, new RegExp(`measurements/${file} \\[endpoint [^\\]]+\\] /series/0/records/0/success: must be boolean, got "yes"`));
  assert.not.ok(existsSync(tree.out), 'no snapshot folder');
  rmSync(tree.root, { recursive: true, force: true });
});

checks('should say where the data date comes from, and warn when one provider\'s measurements alone move it', async () => {
  const tree = fixtureTree();
  const quiet = await check(tree);
  const [, provider] = /data date \S+: the newest measurement, of provider (\S+)/.exec(quiet.stdout) ?? [];
  assert.ok(provider, quiet.stdout);
  assert.not.match(quiet.stdout, /warning/);
  // One record of one file dated three days past everything else.
  let moved = '';
  editMeasurements(tree.data, 0, (m) => {
    const records = m.series[0].records;
    const last = records[records.length - 1];
    moved = new Date(Date.parse(last.timestamp) + 3 * 86_400_000).toISOString();
    records.push({ ...last, timestamp: moved });
  });
  const result = await check(tree);
  assert.is(result.status, 0, result.stderr);
  assert.ok(result.stdout.includes(`data date ${moved}: the newest measurement, of provider `), result.stdout);
  assert.match(result.stdout, new RegExp(`warning: the data date ${moved.replace(/\./g, '\\.')} comes from provider \\S+'s measurements alone: every other provider's end \\d+\\.\\d days earlier or more`));
  // Pinned, it is quiet again.
  const pinned = await check(tree, '--as-of', '2026-11-20');
  assert.match(pinned.stdout, /data date 2026-11-20T23:59:59\.999Z: given with --as-of/);
  assert.not.match(pinned.stdout, /warning/);
  rmSync(tree.root, { recursive: true, force: true });
});

checks.run();
