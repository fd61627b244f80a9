/**
 * `npm run bundle`: the server and the keys tool as one file each, dist/server.mjs and
 * dist/keys.mjs, that run with plain `node` and no repository. Dependencies (ajv, lru-cache)
 * are bundled in; only Node's built-ins stay external. The key file's and the queries'
 * validators are generated ahead (scripts/ahead-validators.ts).
 */
import { build } from 'esbuild';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { aheadValidators } from './ahead-validators.ts';

export const BUNDLE_DIR = 'dist';

/**
 * Entry point of each program, by the name of its file in the bundle folder. The keys command
 * runs itself when it is the program, which in the bundle is dist/keys.mjs.
 */
const PROGRAMS = { 'server.mjs': '../src/bin.ts', 'keys.mjs': '../scripts/keys.ts' } as const;

export async function bundle(outdir = BUNDLE_DIR): Promise<string[]> {
  const written: string[] = [];
  for (const [name, entry] of Object.entries(PROGRAMS)) {
    const outfile = join(outdir, name);
    await build({
      entryPoints: [new URL(entry, import.meta.url).pathname],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      minifySyntax: true,
      legalComments: 'inline',
      // ajv is CommonJS and calls require(); give the ES module bundle one.
      banner: {
        js:
          "import { createRequire as __bundleRequire } from 'node:module'; " +
          'const require = __bundleRequire(import.meta.url);',
      },
      logLevel: 'warning',
      // The key file's and the queries' validators as code generated now, not compiled at every start.
      plugins: [aheadValidators()],
    });
    written.push(outfile);
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(
      `usage: npm run bundle\n\nwrites ${Object.keys(PROGRAMS)
        .map((name) => `${BUNDLE_DIR}/${name}`)
        .join(' and ')}: one file each, run with plain node`,
    );
  } else {
    for (const file of await bundle()) console.log(`wrote ${file} (${(statSync(file).size / 1024).toFixed(0)} KiB)`);
  }
}
