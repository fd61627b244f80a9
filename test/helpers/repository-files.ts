/**
 * The code files of the repository, for the tests that read them all (the import boundaries, the
 * line length, the bundled test files' `import.meta`).
 *
 *   codeFiles('src')             every `.ts` file below src/, at any depth, as `src/...` paths
 *   codeFiles('src', /\.m?ts$/)  those whose name matches the pattern instead
 *
 * test/fixtures is left out: it holds data, not code.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export const REPOSITORY_ROOT = new URL('../../', import.meta.url).pathname;

/** The files below `dir` (a path from the repository's root) whose name matches `name`, as paths from the root. */
export function codeFiles(dir: string, name: RegExp = /\.ts$/): string[] {
  return readdirSync(join(REPOSITORY_ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === 'test/fixtures' ? [] : codeFiles(path, name);
    return name.test(entry.name) ? [path] : [];
  });
}
