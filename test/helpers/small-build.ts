/**
 * The small fixture (test/fixtures/sample-small) built once and shared, read-only, by every
 * `buildFixture` / `startTestServer` of the default fixture and page size (test/helpers/server.ts),
 * which copy it instead of building it again: the build is deterministic (the same input gives
 * byte-identical files in any folder, test/build/pipeline.test.ts), so a copy is the folder a
 * build would have written, and the first build of a process (five seconds, most of it loading
 * and compiling the build) is paid once per run instead of once per file.
 *
 *   const shared = await smallBuild();
 *   shared.snapshotDir   the built snapshot folder (`current` and the one build it names)
 *
 * Read-only: copy it (`cpSync(shared.snapshotDir, mine, { recursive: true, verbatimSymlinks: true })`)
 * and change the copy. `npm test` compares the folder after the run with the folder it built and
 * fails the run if anything in it changed.
 *
 * Where it comes from: under `npm test`, scripts/test.ts builds it once per run, before the files
 * that use test/helpers/server.ts start, into a temporary folder of that run, and passes the path
 * in BDA_TEST_SMALL. A file run alone builds it on the first call, once per process, into a
 * temporary folder removed when the process exits.
 *
 * `node --import tsx test/helpers/small-build.ts OUT_DIR` builds it into OUT_DIR (the runner's way).
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_BUILD_OPTIONS } from '../../build/build-options.ts';
import { runBuild } from '../../build/build.ts';
import { CURRENT_LINK, MANIFEST_FILE } from '../../src/shared/manifest.ts';

/** The environment variable scripts/test.ts passes the shared small build's snapshot folder in. */
export const SMALL_ENV = 'BDA_TEST_SMALL';
/** The fixture and page size the shared build is of: buildFixture's defaults. */
export const SMALL_FIXTURE = 'sample-small';
export const SMALL_PAGE_SIZE = 200;

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;

export interface SmallBuild {
  snapshotDir: string;
}

/**
 * Build the small fixture into `snapshotDir` (which must not hold a build yet), exactly as
 * buildFixture builds it. The data is read from the committed fixture: the build id and every
 * file depend on the data's bytes, not on the folder it is read from.
 */
export async function buildSmall(snapshotDir: string): Promise<SmallBuild> {
  await runBuild({
    ...DEFAULT_BUILD_OPTIONS,
    dataDir: join(FIXTURES, SMALL_FIXTURE),
    outDir: snapshotDir,
    pageSize: SMALL_PAGE_SIZE,
    force: true,
    levels: { gzip: 1, brotli: 1 },
    log: () => {},
  });
  return { snapshotDir };
}

let shared: Promise<SmallBuild> | null = null;

/** The shared, read-only build of the small fixture (see the header). */
export function smallBuild(): Promise<SmallBuild> {
  if (!shared) {
    const given = process.env[SMALL_ENV];
    if (given) {
      shared = Promise.resolve().then(() => {
        const manifest = join(given, CURRENT_LINK, MANIFEST_FILE);
        const from = `${SMALL_ENV}, set by scripts/test.ts`;
        if (!existsSync(manifest)) {
          throw new Error(`no built small fixture at ${given} (${from}): ${manifest} is missing`);
        }
        return { snapshotDir: given };
      });
    } else {
      const root = mkdtempSync(join(tmpdir(), 'test-small-'));
      process.on('exit', () => rmSync(root, { recursive: true, force: true }));
      shared = buildSmall(join(root, 'snapshot'));
    }
  }
  return shared;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const outDir = process.argv[2];
  if (!outDir) throw new Error('usage: node --import tsx test/helpers/small-build.ts OUT_DIR');
  await buildSmall(outDir);
  console.log(`built the small fixture: ${outDir}`);
}
