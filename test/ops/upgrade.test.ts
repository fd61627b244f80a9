/**
 * docs/operating.md's "Upgrade and roll back", run from what a previous version left: a snapshot
 * folder whose current build is of the previous format (2) and a state folder whose keys.json is
 * of format 1. The bundle (dist/server.mjs, dist/keys.mjs) says its version, refuses the old
 * build naming the fix, serves once the data is built again (the old build kept beside it) and
 * answers the key the old file holds; a keys change rewrites that file in the current format;
 * the rollback's commands put back the old build (which the running server, reading only its own
 * format, declines while it goes on serving) and the old keys file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadKeys } from '../../src/keys/file-read.ts';
import { MANIFEST_FILE, MANIFEST_FORMAT } from '../../src/shared/manifest.ts';
import { builtTree, cli } from '../helpers/fixture-tree.ts';
import { get } from '../helpers/http.ts';
import { PACKAGE_VERSION as VERSION, spawnServer, START_GUARD_MS } from '../helpers/process.ts';
import { stagedBundle } from '../helpers/staged-bundle.ts';
import { until } from '../helpers/wait.ts';

const PREVIOUS_FORMAT = MANIFEST_FORMAT - 1;

const upgrade = suite('upgrade and roll back');

upgrade('should upgrade from a build and a keys file of the previous formats, and roll back to them', async () => {
  const staged = await stagedBundle();
  const tree = await builtTree();
  const state = join(tree.root, 'state');
  const node = (file: string, ...args: string[]) => spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', timeout: START_GUARD_MS });
  try {
    // What the previous version left. Its build: the server decides by the manifest's format
    // before it reads anything else, so the current build relabelled stands for one.
    const previous = readlinkSync(join(tree.out, 'current'));
    const manifestPath = join(tree.out, previous, MANIFEST_FILE);
    const manifest = readFileSync(manifestPath, 'utf8');
    assert.ok(manifest.includes(`"format":${MANIFEST_FORMAT},`), manifest.slice(0, 80));
    writeFileSync(manifestPath, manifest.replace(`"format":${MANIFEST_FORMAT},`, `"format":${PREVIOUS_FORMAT},`));
    // Its keys file: format 1, one JSON object, as versions before 2026-11-26 wrote it.
    const made = node(staged.keys, 'create', '--tier', 'pro', '--org', 'oldco', '--user', 'ana', '--json', '--state', state);
    assert.is(made.status, 0, made.stderr);
    const key = (JSON.parse(made.stdout) as { key: string }).key;
    writeFileSync(join(state, 'keys.json'), `${JSON.stringify({ format: 1, keys: loadKeys(state) }, null, 2)}\n`);
    const formatOne = readFileSync(join(state, 'keys.json'), 'utf8');
    cpSync(state, `${state}.previous`, { recursive: true });

    const version = node(staged.server, '--version');
    assert.is(version.status, 0, version.stderr);
    assert.match(version.stdout, new RegExp(`^benchmark-data-api ${VERSION.replaceAll('.', '\\.')} \\(snapshot format ${MANIFEST_FORMAT},`));
    const args = ['--port', '0', '--snapshot', tree.out, '--state', state];
    const refused = node(staged.server, ...args);
    assert.is(refused.status, 1, refused.stdout);
    assert.match(refused.stderr, new RegExp(`cannot start: .*has manifest format ${PREVIOUS_FORMAT}; this server reads format ${MANIFEST_FORMAT} \\(rebuild it\\)`));

    // npm run build -- --out SNAPSHOT: a build of the current format beside the old one, kept.
    const built = cli(tree);
    assert.is(built.status, 0, built.stderr);
    const upgraded = readlinkSync(join(tree.out, 'current'));
    assert.is.not(upgraded, previous);
    assert.ok(existsSync(join(tree.out, previous, MANIFEST_FILE)), 'the old build is kept for a rollback');

    const server = await spawnServer(args, [staged.server]);
    try {
      assert.match(server.output(), new RegExp(`benchmark-data-api ${VERSION.replaceAll('.', '\\.')} serving snapshot ${upgraded} \\(format ${MANIFEST_FORMAT}\\)`));
      assert.is((await get(server.url, '/api/v2/language/models', key)).status, 200, 'the key of the format-1 file');
      const ready = (await get(server.url, '/readyz')).json();
      assert.equal([ready.version, ready.snapshot_format, ready.snapshot], [VERSION, MANIFEST_FORMAT, upgraded]);
      // Its next change rewrites the keys file in the current format.
      const change = node(staged.keys, 'create', '--tier', 'free', '--org', 'newco', '--user', 'bo', '--state', state);
      assert.is(change.status, 0, change.stderr);
      assert.match(readFileSync(join(state, 'keys.json'), 'utf8'), /^\{"format":2,/);

      // The rollback's commands: the old build current again. This server declines it (not its
      // format), says so once, and goes on answering from the build it has.
      execFileSync('sh', ['-c', `ln -sfn ${previous} current.next && mv -T current.next current`], { cwd: tree.out });
      await until(() => /has manifest format \d+; this server reads format/.test(server.output()), 'the server says it declines the old build');
      assert.is((await get(server.url, '/api/v2/language/models', key)).status, 200);
      assert.is((await get(server.url, '/readyz')).json().snapshot, upgraded);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    cpSync(join(`${state}.previous`, 'keys.json'), join(state, 'keys.json'));
    assert.is(readFileSync(join(state, 'keys.json'), 'utf8'), formatOne, 'the keys file the old version read');
  } finally {
    rmSync(tree.root, { recursive: true, force: true });
  }
});

upgrade.run();
