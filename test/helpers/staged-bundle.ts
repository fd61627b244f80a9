/**
 * The bundle (dist/server.mjs and dist/keys.mjs, as `npm run bundle` writes them) staged where
 * any user can read it, for tests that run the server or the keys command as another user
 * (test/helpers/users.ts). That user may not be able to read the checkout at all (a clone in a
 * 0700 folder, as `mktemp -d` or /root give), and through tsx the program needs the checkout and
 * its node_modules; the bundle needs neither.
 *
 *   const staged = await stagedBundle();
 *   staged.server   dist/server.mjs, world-readable: spawnServer(args, [staged.server], ...)
 *   staged.keys     dist/keys.mjs, world-readable: node staged.keys create ...
 *   staged.dir      the folder holding both (mode 0755), a cwd any user may use
 *
 * Bundled once per process into a temporary folder removed when the process exits.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundle } from '../../scripts/bundle.ts';

export interface StagedBundle {
  dir: string;
  server: string;
  keys: string;
}

let staged: Promise<StagedBundle> | null = null;

export function stagedBundle(): Promise<StagedBundle> {
  if (!staged) {
    const dir = mkdtempSync(join(tmpdir(), 'staged-bundle-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    chmodSync(dir, 0o755);
    staged = bundle(dir).then((files) => {
      for (const file of files) chmodSync(file, 0o644);
      return { dir, server: join(dir, 'server.mjs'), keys: join(dir, 'keys.mjs') };
    });
  }
  return staged;
}
