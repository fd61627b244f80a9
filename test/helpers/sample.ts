/**
 * The full committed sample (data/), built once per `npm test` run and shared, read-only, by
 * the test files that need a snapshot of it.
 *
 * API:
 *
 *   import { sampleSnapshot, privateSampleCopy } from './sample.ts';
 *
 *   const sample = await sampleSnapshot();
 *   sample.outDir    the snapshot folder (its `current` link and the one build it names): what
 *                    `--snapshot`, `ServerOptions.snapshotDir` and `keys ... --snapshot` take
 *   sample.buildDir  the build itself (manifest.json, the pack, the route indexes): what
 *                    runBuild's `BuildSummary.snapshotDir` names
 *   sample.buildId   the build's id (`readlink current`)
 *
 *   const mine = await privateSampleCopy(join(root, 'snapshot'));
 *                    the same three fields for a copy of the shared snapshot at that path (which
 *                    must not exist yet), for a test that changes it: rebuilds into it,
 *                    switches `current`, deletes files. The caller removes it.
 *
 * Read-only: never write below `outDir` (no rebuild or lock there, no state folder inside it):
 * other test files read it at the same time. `npm test` compares the folder after the run with
 * the folder it built and fails the run if anything in it changed.
 *
 * What it is: data/ built exactly as `npm start` builds it (scripts/start.ts),
 * `runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: 'data', outDir })`, compression levels included:
 * test/ops/start.test.ts starts `npm start` on a copy, which finds it up to date rather than
 * building the sample a second time in the run (about 30 s of CPU; fast compression would save
 * only 7 of them here).
 *
 * Where it comes from: under `npm test` (and `npm test -- PATTERN`), scripts/test.ts builds it
 * once, before the first file that needs it starts, into a temporary folder of that run (two
 * runs at the same time never share one), passes the path in the environment variable
 * BDA_TEST_SAMPLE, and removes the folder at the end. The runner finds the files that need it
 * by looking for `helpers/sample.ts` in their text. A test file run alone
 * (`npx tsx test/x.test.ts`) builds it on the first call, once per process, into a temporary
 * folder removed when the process exits.
 *
 * `node --import tsx test/helpers/sample.ts OUT_DIR` builds it into OUT_DIR (the runner's way).
 */
import { cpSync, existsSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { CURRENT_LINK, MANIFEST_FILE } from '../../src/shared/manifest.ts';
import { ROOT } from './process.ts';

/** The environment variable scripts/test.ts passes the shared snapshot folder in. */
export const SAMPLE_ENV = 'BDA_TEST_SAMPLE';

export interface SampleSnapshot {
  outDir: string;
  buildDir: string;
  buildId: string;
}

/** Build data/ into `outDir` (which must not hold a build yet). */
export async function buildSample(outDir: string): Promise<SampleSnapshot> {
  const built = await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: join(ROOT, 'data'), outDir, log: () => {} });
  return { outDir, buildDir: built.snapshotDir, buildId: built.buildId };
}

/** The snapshot a folder's `current` link names; throws saying what is missing. */
function snapshotAt(outDir: string, from: string): SampleSnapshot {
  const link = join(outDir, CURRENT_LINK);
  if (!existsSync(join(link, MANIFEST_FILE))) throw new Error(`no built sample at ${outDir} (${from}): ${link}/${MANIFEST_FILE} is missing`);
  const buildId = readlinkSync(link);
  return { outDir, buildDir: join(outDir, buildId), buildId };
}

let shared: Promise<SampleSnapshot> | null = null;

/** The shared, read-only snapshot of the full sample (see the header). */
export function sampleSnapshot(): Promise<SampleSnapshot> {
  if (!shared) {
    const given = process.env[SAMPLE_ENV];
    if (given) shared = Promise.resolve().then(() => snapshotAt(given, `${SAMPLE_ENV}, set by scripts/test.ts`));
    else {
      const root = mkdtempSync(join(tmpdir(), 'test-sample-'));
      process.on('exit', () => rmSync(root, { recursive: true, force: true }));
      shared = buildSample(join(root, 'snapshot'));
    }
  }
  return shared;
}

/** A copy of the shared snapshot at `dest`, the caller's to change and remove. */
export async function privateSampleCopy(dest: string): Promise<SampleSnapshot> {
  if (existsSync(dest)) throw new Error(`privateSampleCopy: ${dest} already exists`);
  const { outDir } = await sampleSnapshot();
  // Symlinks as they are: `current` names its build relatively, so the copy's names the copy's.
  cpSync(outDir, dest, { recursive: true, verbatimSymlinks: true });
  return snapshotAt(dest, 'a private copy');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: node --import tsx test/helpers/sample.ts OUT_DIR');
  const built = await buildSample(outDir);
  console.log(`built the sample: ${built.buildDir}`);
}
