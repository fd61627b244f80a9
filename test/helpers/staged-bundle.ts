/**
 * The bundle (dist/server.mjs and dist/keys.mjs, as `npm run bundle` writes them) staged where
 * any user can read it, for tests that run the server or the keys command as another user
 * (test/helpers/users.ts), and copied from there by tests that run the bundle from a folder of
 * their own. That user may not be able to read the checkout at all (a clone in a 0700 folder, as
 * `mktemp -d` or /root give), and through tsx the program needs the checkout and its
 * node_modules; the bundle needs neither.
 *
 *   const staged = await stagedBundle();
 *   staged.server   dist/server.mjs, world-readable: spawnServer(args, [staged.server], ...)
 *   staged.keys     dist/keys.mjs, world-readable: node staged.keys create ...
 *   staged.dir      the folder holding both (mode 0755), a cwd any user may use
 *
 *   cannotRun(staged, other)   why that user cannot run the staged bundle (a private temporary
 *                   folder), or null: a test that needs it skips with that reason
 *
 *   const [serverFile, keysFile] = await bundleCopy(join(root, 'dist'));
 *                   the two files copied into that folder, as `bundle(dir)` returns them
 *
 * Read-only: never write into `staged.dir`.
 *
 * Where it comes from: under `npm test`, scripts/test.ts bundles once per run, before the files
 * that use this helper start, into a world-readable temporary folder of that run, and passes the
 * path in BDA_TEST_BUNDLE. A file run alone bundles on the first call, once per process, into a
 * world-readable temporary folder removed when the process exits.
 *
 * `node --import tsx test/helpers/staged-bundle.ts OUT_DIR` bundles into OUT_DIR, world-readable
 * (the runner's way).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundle } from '../../scripts/bundle.ts';
import type { OtherUser } from './users.ts';

/** The environment variable scripts/test.ts passes the staged bundle's folder in. */
export const BUNDLE_ENV = 'BDA_TEST_BUNDLE';

export interface StagedBundle {
  dir: string;
  server: string;
  keys: string;
}

const filesIn = (dir: string): StagedBundle => ({ dir, server: join(dir, 'server.mjs'), keys: join(dir, 'keys.mjs') });

/** Bundle into `dir` (made if missing), the folder mode 0755 and the files 0644. */
export async function stageBundle(dir: string): Promise<StagedBundle> {
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  for (const file of await bundle(dir)) chmodSync(file, 0o644);
  return filesIn(dir);
}

let staged: Promise<StagedBundle> | null = null;

export function stagedBundle(): Promise<StagedBundle> {
  if (!staged) {
    const given = process.env[BUNDLE_ENV];
    if (given) {
      staged = Promise.resolve().then(() => {
        const files = filesIn(given);
        for (const file of [files.server, files.keys]) {
          const from = `${BUNDLE_ENV}, set by scripts/test.ts`;
          if (!existsSync(file)) throw new Error(`no staged bundle at ${given} (${from}): ${file} is missing`);
        }
        return files;
      });
    } else {
      const dir = mkdtempSync(join(tmpdir(), 'staged-bundle-'));
      process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
      staged = stageBundle(dir);
    }
  }
  return staged;
}

/**
 * Why `user` cannot run the staged bundle (`node keys.mjs --help` in its folder, as that user),
 * or null when it can: it cannot when node or the temporary folder is closed to it.
 */
export function cannotRun(staged: StagedBundle, user: OtherUser): string | null {
  const [command, ...before] = [...user.runAs, process.execPath];
  const child = spawnSync(command, [...before, staged.keys, '--help'], { cwd: staged.dir, encoding: 'utf8' });
  if (child.status === 0) return null;
  const lines = (child.stderr || child.error?.message || `exit status ${child.status}`).trim().split('\n');
  const said = lines.find((line) => /error|denied/i.test(line))?.trim() ?? lines[0];
  return `${user.name} cannot run node ${process.execPath} on the bundle staged in ${staged.dir}: ${said}`;
}

/** The bundle's two files copied into `outdir` (made if missing): [server.mjs, keys.mjs], as bundle(outdir) returns. */
export async function bundleCopy(outdir: string): Promise<string[]> {
  const from = await stagedBundle();
  mkdirSync(outdir, { recursive: true });
  const copied = filesIn(outdir);
  copyFileSync(from.server, copied.server);
  copyFileSync(from.keys, copied.keys);
  return [copied.server, copied.keys];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: node --import tsx test/helpers/staged-bundle.ts OUT_DIR');
  await stageBundle(outDir);
  console.log(`staged the bundle: ${outDir}`);
}
