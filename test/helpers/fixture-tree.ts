/**
 * A data folder to build: a copy of the small fixture (test/fixtures/sample-small) in a
 * temporary folder, with the build run on it in-process or as `npm run build` runs it, and the
 * edits tests make to its files.
 *
 *   const tree = fixtureTree();           tree.root (remove it after), tree.data, tree.out
 *   const tree = await builtTree();       the same with tree.out built as `await build(tree)` builds it
 *   await build(tree, { force: true })    runBuild with fast compression
 *   cli(tree, '--force')                  build/main.ts as a process (status, stdout, stderr)
 *   await command(tree, '--force')        the same command in-process (build/main.ts's run), its
 *                                         output caught: what a process of it would print. A file
 *                                         runs one process for the exit status and the console;
 *                                         a process costs 1-2 s of CPU more (tsx, a cold start)
 *   editJson(path, (value) => ...)        rewrite a JSON file
 *   editMeasurements(tree.data, 0, ...)   rewrite the first measurements file (gzip-compressed JSON)
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { DEFAULT_BUILD_OPTIONS, type BuildOptions } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { run } from '../../build/main.ts';
import { caught, ROOT, type Said } from './process.ts';
import { FIXTURES } from './server.ts';
import { smallBuild } from './small-build.ts';

export interface Tree {
  root: string;
  data: string;
  out: string;
}

export function fixtureTree(): Tree {
  const root = mkdtempSync(join(tmpdir(), 'build-test-'));
  const data = join(root, 'data');
  cpSync(join(FIXTURES, 'sample-small'), data, { recursive: true });
  return { root, data, out: join(root, 'snapshot') };
}

/**
 * fixtureTree() with its snapshot built, for a test whose subject is what comes after the build:
 * a copy of the small fixture's shared build (test/helpers/small-build.ts), the bytes
 * `await build(tree)` would write there (the build is deterministic).
 */
export async function builtTree(): Promise<Tree> {
  const tree = fixtureTree();
  // Symlinks as they are: `current` names its build relatively, so the copy's names the copy's.
  cpSync((await smallBuild()).snapshotDir, tree.out, { recursive: true, verbatimSymlinks: true });
  return tree;
}

export function build(tree: Tree, options: Partial<BuildOptions> = {}) {
  return runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: tree.data, outDir: tree.out, levels: { gzip: 1, brotli: 1 }, log: () => {}, ...options });
}

/** The build command's arguments for a tree, fast compression (a `--check` takes the levels too). */
const commandArgs = (tree: Tree, extra: string[]) => ['--data', tree.data, '--out', tree.out, '--gzip-level', '1', '--brotli-level', '1', ...extra];

export function cli(tree: Tree, ...extra: string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'build/main.ts', ...commandArgs(tree, extra)], { cwd: ROOT, encoding: 'utf8' });
}

export function command(tree: Tree, ...extra: string[]): Promise<Said> {
  return caught((io) => run(commandArgs(tree, extra), io));
}

export function editJson(path: string, edit: (value: any) => void): void {
  const value = JSON.parse(readFileSync(path, 'utf8'));
  edit(value);
  writeFileSync(path, JSON.stringify(value, null, 2));
}

/** Rewrite one measurements file of a data folder (by its place in name order); returns its name. */
export function editMeasurements(data: string, index: number, edit: (file: any) => void): string {
  const name = readdirSync(join(data, 'measurements')).sort()[index];
  const path = join(data, 'measurements', name);
  const file = JSON.parse(gunzipSync(readFileSync(path)).toString());
  edit(file);
  writeFileSync(path, gzipSync(JSON.stringify(file)));
  return name;
}
