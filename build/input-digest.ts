/**
 * The digest of a build's inputs, which decides whether anything is built: equal to `current`'s,
 * nothing is; equal to a kept build's, `current` switches back to it. It covers the build's own
 * code too, so a changed build rebuilds an unchanged dataset.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MANIFEST_FORMAT } from '../src/shared/manifest.ts';
import type { BuildOptions } from './build-options.ts';
import type { DataFile } from './load/validate.ts';

const CODE_DIRS = ['build', 'src'];

/** Hash of the build's own source, so a changed build rebuilds an unchanged dataset. */
function codeDigest(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const hash = createHash('sha256');
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mjs|js|json)$/.test(entry.name)) hash.update(relative(root, path)).update(readFileSync(path));
    }
  };
  for (const dir of CODE_DIRS) walk(join(root, dir));
  return hash.digest('hex');
}

/**
 * The digest of a build's inputs: the format, the build's code, the options that change its
 * bytes and the data files. SOURCE_DATE_EPOCH is not among them: it changes only the id.
 */
export function inputDigest(
  files: readonly DataFile[],
  options: Pick<BuildOptions, 'pageSize' | 'statsDays' | 'asOf' | 'levels' | 'arena' | 'historyBuilds'>,
): string {
  const { pageSize, statsDays, asOf, levels, arena, historyBuilds } = options;
  const hash = createHash('sha256')
    .update(`format ${MANIFEST_FORMAT}\n`)
    .update(codeDigest())
    .update(JSON.stringify({ pageSize, statsDays, asOf, levels, arena, historyBuilds }));
  for (const file of files) hash.update(`\n${file.path}\n${file.bytes.length}\n`).update(file.bytes);
  return hash.digest('hex');
}
