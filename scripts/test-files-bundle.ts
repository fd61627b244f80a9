/**
 * The black-box test files of one `npm test` run, bundled once (esbuild) so that each file's process
 * loads plain JavaScript instead of every module through tsx's loader.
 *
 * Why: importing the server and the build through tsx took 2.2 to 2.5 s of CPU a process (its hooks
 * run on a thread of their own, one round trip a module), the same modules bundled 0.8 s. Over the
 * run's 68 black-box files, `npm test` on 2 cores went from 820 to 664 s of CPU and from 7 min 9 s
 * to 5 min 51 s (docs/development.md, "Tests").
 *
 * What stays the same: every module sees its own `import.meta.url` and `import.meta.dirname` (of its
 * source file, not of the bundle), so paths found from them are unchanged; packages are imported
 * from node_modules as before; stack traces name the source files (inline source maps, read with
 * `--enable-source-maps`). The files shared by several test files go to common chunks, loaded once
 * a process. Children the tests start with `--import tsx` still run their TypeScript as users do.
 */
import { build, type Plugin } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The test files bundled, or not. */
export interface TestBundles {
  /** How to run a test file with node: its bundle as it is, or (not bundled) the file itself through tsx. */
  nodeArgs: (file: string) => string[];
  /** One line for the report: how long the bundling took, or why it failed. */
  note: string;
}

const UNBUNDLED = (note: string): TestBundles => ({ nodeArgs: (file) => ['--import', 'tsx', file], note });

/** The names each module's own `import.meta` fields are declared under (esbuild renames them apart). */
const OWN_URL = '__ownImportMetaUrl';
const OWN_DIRNAME = '__ownImportMetaDirname';

/**
 * Every module keeps the `import.meta` of its source file. esbuild gives a bundle's modules the
 * bundle's own; these two fields are the only ones the sources read (test/unit/scripts/test-files-bundle.test.ts
 * keeps it so). Each module declares its own values, on its first line so that no line moves, and
 * `define` points the fields at them: in code only, not in the text of a program a test writes
 * out for a child.
 */
const OWN_IMPORT_META: Plugin = {
  name: 'own-import-meta',
  setup(bundler) {
    bundler.initialOptions.define = {
      ...bundler.initialOptions.define,
      'import.meta.url': OWN_URL,
      'import.meta.dirname': OWN_DIRNAME,
    };
    bundler.onLoad({ filter: /\.m?ts$/ }, ({ path }) => ({
      contents: ownImportMeta(path) + readFileSync(path, 'utf8'),
      loader: 'ts',
    }));
  },
};

/** The declarations of a module's own `import.meta` fields, for the file at `path`: one line's start. */
function ownImportMeta(path: string): string {
  const [url, dir] = [pathToFileURL(path).href, dirname(path)].map((value) => JSON.stringify(value));
  return `const ${OWN_URL} = ${url}, ${OWN_DIRNAME} = ${dir}; `;
}

/**
 * Bundle `files` (paths under `root`) into a temporary folder removed when the process exits: how to
 * run each. When the bundle cannot be made (a file that does not compile), every file runs through
 * tsx, which reports that file's error as its own failure; `note` says why.
 */
export async function bundleTestFiles(files: string[], root: string): Promise<TestBundles> {
  if (!files.length) return UNBUNDLED('');
  const outDir = mkdtempSync(join(tmpdir(), 'bda-test-files-'));
  process.on('exit', () => rmSync(outDir, { recursive: true, force: true }));
  // The packages a bundle imports are found from its own folder up.
  symlinkSync(join(root, 'node_modules'), join(outDir, 'node_modules'));
  const started = performance.now();
  try {
    await build({
      entryPoints: files,
      outdir: outDir,
      outbase: root,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      sourcemap: 'inline',
      plugins: [OWN_IMPORT_META],
      logLevel: 'silent',
    });
  } catch (error) {
    const why = (error as Error).message.split('\n').slice(0, 6).join('\n');
    return UNBUNDLED(`the test files could not be bundled; each runs through tsx:\n${why}\n`);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return {
    nodeArgs: (file) => ['--enable-source-maps', join(outDir, relative(root, file)).replace(/\.ts$/, '.mjs')],
    note: `${files.length} test files bundled, ${seconds} s\n`,
  };
}
