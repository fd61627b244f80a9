/**
 * `npm run test:unit [-- FILE...]`: every `test/unit/**\/*.test.ts` (or the files named) in ONE
 * process, the way uvu's own CLI runs several files: `UVU_DEFER` is set before uvu loads, so each
 * file's `suite().run()` only queues its suites (in the group of the file being imported, by
 * `UVU_INDEX`) instead of starting them; `exec()` then runs the groups in file order and prints
 * uvu's totals (`Total:`, `Passed:`, `Skipped:`). A file that fails to import counts as one failed
 * test of its own group. Exits non-zero when anything failed.
 *
 * Unit tests are pure functions and in-process objects, so sharing a process is safe and saves a
 * Node and tsx start per file; `npm test` runs this once for the unit files and gives every
 * black-box file a process of its own.
 */
import { readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = new URL('..', import.meta.url).pathname;
const UNIT_DIR = join(ROOT, 'test/unit');

/** Every `*.test.ts` below a folder, sorted. */
function findTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? findTests(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
    )
    .sort();
}

interface UvuGlobals {
  UVU_DEFER?: number;
  UVU_INDEX?: number;
  UVU_QUEUE?: unknown[][];
}

async function main(args: string[]): Promise<void> {
  const files = args.length ? args.map((f) => (isAbsolute(f) ? f : resolve(f))) : findTests(UNIT_DIR);
  const uvuGlobals = globalThis as UvuGlobals;
  // Before uvu is first imported: it reads UVU_DEFER once, when it loads.
  uvuGlobals.UVU_DEFER = 1;
  const uvu = await import('uvu');
  const queue = (uvuGlobals.UVU_QUEUE ??= []);
  for (const [index, file] of files.entries()) {
    const name = relative(ROOT, file);
    uvuGlobals.UVU_INDEX = index;
    queue.push([name]);
    try {
      await import(pathToFileURL(file).href);
    } catch (error) {
      const failed = uvu.suite(name);
      failed('should load', () => {
        throw error;
      });
      failed.run();
    }
  }
  await uvu.exec();
}

await main(process.argv.slice(2));
