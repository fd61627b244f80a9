/**
 * The soak's snapshot: built from a copy of the small fixture, rebuilt with one provider renamed
 * (so each build differs), and corrupt copies switched in between rebuilds.
 */
import { execFile } from 'node:child_process';
import {
  closeSync,
  cpSync,
  fstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { CURRENT_LINK, PACK_FILE } from '../../src/shared/manifest.ts';
import { ROOT } from '../processes.ts';

const BYTES_FLIPPED = 16;

/** Copy the small fixture to `data` and build it into `snapshot`; throws when the build fails. */
export async function firstBuild(data: string, snapshot: string): Promise<void> {
  cpSync(join(ROOT, 'test/fixtures/sample-small'), data, { recursive: true });
  const first = await build(data, snapshot);
  if (first) throw new Error(`initial build failed: ${first}`);
}

/**
 * Build `data` into `snapshot` (fast compression levels: the soak is about switching, not bytes);
 * null or why it failed. A process the soak does not wait on: a build waited for in the soak's
 * own process held its clients, probe and key checks for a second, which the verdict then
 * reported as the server's stalls.
 */
export function build(data: string, snapshot: string): Promise<string | null> {
  const args = [
    '--import',
    'tsx',
    join(ROOT, 'build/main.ts'),
    '--data',
    data,
    '--out',
    snapshot,
    '--quiet',
    '--gzip-level',
    '1',
    '--brotli-level',
    '1',
  ];
  return new Promise((resolve) =>
    execFile(process.execPath, args, { cwd: ROOT, encoding: 'utf8' }, (error, _stdout, stderr) =>
      resolve(error ? stderr || error.message : null),
    ),
  );
}

/**
 * Rename a provider (the `n`-th rebuild) so the new snapshot differs from the old one, and build;
 * null or why it failed.
 */
export function renameAndRebuild(data: string, snapshot: string, n: number): Promise<string | null> {
  const path = join(data, 'providers.json');
  const list = JSON.parse(readFileSync(path, 'utf8')) as { name: string }[];
  list[0]!.name = `${list[0]!.name.replace(/ \(\d+\)$/, '')} (${n})`;
  writeFileSync(path, JSON.stringify(list, null, 2));
  return build(data, snapshot);
}

/** Copy the current build, flip bytes at random places of the copy's pack, and point `current` at the copy. */
export function switchToCorruptCopy(snapshot: string, n: number): void {
  const currentId = readlinkSync(join(snapshot, CURRENT_LINK));
  // Named after its source, so pruning (by name order) sees it as that build's neighbour.
  const copyId = `${currentId.replace(/-corrupt\d+$/, '')}-corrupt${n}`;
  cpSync(join(snapshot, currentId), join(snapshot, copyId), { recursive: true });
  const fd = openSync(join(snapshot, copyId, PACK_FILE), 'r+');
  try {
    const { size } = fstatSync(fd);
    const byte = Buffer.alloc(1);
    for (let i = 0; i < BYTES_FLIPPED; i++) {
      const at = Math.floor(Math.random() * size);
      readSync(fd, byte, 0, 1, at);
      byte[0] ^= 0xff;
      writeSync(fd, byte, 0, 1, at);
    }
  } finally {
    closeSync(fd);
  }
  const link = join(snapshot, `.corrupt-${n}`);
  symlinkSync(copyId, link);
  renameSync(link, join(snapshot, CURRENT_LINK));
}
