/**
 * Code reads at 120 columns or less: in src/, build/ and scripts/, every line of a TypeScript or
 * JavaScript file fits, except a line that holds a URL (it cannot be broken and still be
 * followed) and a row of a table drawn in a comment (`| a | b |`), which reads as a whole.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codeFiles, REPOSITORY_ROOT as ROOT } from '../helpers/repository-files.ts';

const FOLDERS = ['src', 'build', 'scripts'];
const MAX_COLUMNS = 120;
const CODE = /\.(ts|mts|js|mjs)$/;


/** Whether a long line may stay long: it holds a URL, or it is a row of a table in a comment. */
function mayBeLong(line: string): boolean {
  return /[a-z]+:\/\/\S/.test(line) || /^\s*(\*|\/\/)\s*\|.*\|\s*$/.test(line);
}

/** `file:line (N columns)` for each line past MAX_COLUMNS that may not be long. */
function longLines(path: string, text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const columns = [...line].length; // code points, as an editor counts them
    return columns > MAX_COLUMNS && !mayBeLong(line) ? [`${path}:${i + 1} (${columns} columns)`] : [];
  });
}

const lines = suite('line length');

lines('should tell a long line from a URL or a table row', () => {
  assert.equal(longLines('a.ts', `const a = 1;\n${'x'.repeat(121)}\n${'y'.repeat(120)}`), ['a.ts:2 (121 columns)']);
  assert.ok(mayBeLong(`// see https://example.org/${'p'.repeat(120)}`));
  assert.ok(mayBeLong(` * | ${'cell | '.repeat(30)}`));
  assert.not.ok(mayBeLong(` * ${'word '.repeat(30)}`));
});

lines(`should keep every line of ${FOLDERS.join('/, ')}/ at ${MAX_COLUMNS} columns or less`, () => {
  const found = FOLDERS.flatMap((folder) => codeFiles(folder, CODE)).flatMap((path) => longLines(path, readFileSync(join(ROOT, path), 'utf8')));
  assert.equal(found, [], `${found.length} lines are longer than ${MAX_COLUMNS} columns:\n${found.join('\n')}`);
});

lines.run();
