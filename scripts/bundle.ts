/**
 * `npm run bundle`: the server as one file, dist/server.mjs, that runs with plain `node`.
 * Dependencies (ajv, lru-cache) are bundled in; only Node's built-ins stay external.
 */
import { build } from 'esbuild';
import { statSync } from 'node:fs';

export const BUNDLE_PATH = 'dist/server.mjs';

export async function bundle(outfile = BUNDLE_PATH): Promise<void> {
  await build({
    entryPoints: [new URL('../src/bin.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minifySyntax: true,
    legalComments: 'inline',
    // ajv is CommonJS and calls require(); give the ES module bundle one.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    logLevel: 'warning',
  });
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bundle();
  console.log(`wrote ${BUNDLE_PATH} (${(statSync(BUNDLE_PATH).size / 1024).toFixed(0)} KiB)`);
}
