import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bundleTestFiles } from '../../../scripts/test-files-bundle.ts';
import { codeFiles, REPOSITORY_ROOT } from '../../helpers/repository-files.ts';

const bundling = suite('the test files bundled for npm test');

/** A folder of test files and the modules they import, removed afterwards. */
function tree(files: Record<string, string>): { root: string; path: (name: string) => string } {
  const root = mkdtempSync(join(tmpdir(), 'bda-bundle-test-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return { root, path: (name) => join(root, name) };
}

bundling('should give every module the import.meta of its own source, in code but not in text', async () => {
  const { root, path } = tree({
    'lib/where.ts': 'export const url: string = import.meta.url;\nexport const dir: string = import.meta.dirname;\n',
    'test/a.test.ts': [
      "import { url, dir } from '../lib/where.ts';",
      'const program = `console.log(import.meta.url)`;',
      'console.log(JSON.stringify({ own: import.meta.url, url, dir, program }));',
    ].join('\n'),
  });
  try {
    const { nodeArgs, note } = await bundleTestFiles([path('test/a.test.ts')], root);
    assert.match(note, /^1 test files bundled, [\d.]+ s\n$/);
    const args = nodeArgs(path('test/a.test.ts'));
    assert.not.ok(args.includes('tsx'), 'the bundle runs with plain node');
    const ran = spawnSync(process.execPath, args, { encoding: 'utf8' });
    assert.is(ran.status, 0, ran.stderr);
    assert.equal(JSON.parse(ran.stdout), {
      own: pathToFileURL(path('test/a.test.ts')).href,
      url: pathToFileURL(path('lib/where.ts')).href,
      dir: path('lib'),
      program: 'console.log(import.meta.url)',
    });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

bundling('should name the source file and line where a bundled test throws', async () => {
  const { root, path } = tree({ 'test/b.test.ts': "const n: number = 1;\n\nthrow new Error('thrown at line ' + (n + 2));\n" });
  try {
    const { nodeArgs } = await bundleTestFiles([path('test/b.test.ts')], root);
    const ran = spawnSync(process.execPath, nodeArgs(path('test/b.test.ts')), { encoding: 'utf8' });
    assert.is.not(ran.status, 0);
    assert.match(ran.stderr, 'thrown at line 3');
    assert.match(ran.stderr, `${path('test/b.test.ts')}:3`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

bundling('should run every file through tsx, saying why, when one does not compile', async () => {
  const { root, path } = tree({ 'test/c.test.ts': 'export const fine = 1;\n', 'test/d.test.ts': 'const = ;\n' });
  try {
    const bundles = await bundleTestFiles([path('test/c.test.ts'), path('test/d.test.ts')], root);
    assert.match(bundles.note, /could not be bundled; each runs through tsx/);
    assert.equal(bundles.nodeArgs(path('test/c.test.ts')), ['--import', 'tsx', path('test/c.test.ts')]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

bundling('should find no import.meta field in the repository but the two the bundle keeps', () => {
  const other = /import\.meta\.(?!(?:url|dirname)\b)\w+|=\s*import\.meta\b(?!\.)/;
  const files = ['src', 'build', 'scripts', 'test'].flatMap((dir) => codeFiles(dir));
  assert.ok(files.length > 100, 'the repository was read');
  assert.equal(
    files.filter((file) => other.test(readFileSync(join(REPOSITORY_ROOT, file), 'utf8'))),
    [],
    'a field esbuild would give the bundle`s value',
  );
});

bundling.run();
