/**
 * `npm start [-- flags]`: the embedded default. Builds the snapshot from data/ when it is
 * missing or the inputs changed (the build's own digest check makes an unchanged start
 * cheap), creates one demo key per tier on the very first start and prints them once, then
 * runs the server with the same flags as dist/server.mjs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS, runBuild } from '../build/build.ts';
import { DatasetError, formatProblem } from '../build/problems.ts';
import { readCurrentManifest } from '../build/snapshot-dir.ts';
import { ConfigError, resolveOptions } from '../src/config.ts';
import { ensureDemoKeys } from '../src/keys.ts';
import { main } from '../src/main.ts';
import { ensurePrivateDir } from '../src/shared/state-files.ts';

const argv = process.argv.slice(2);
const DATA_DIR = 'data';

function printDemoKeys(keys: { key: string; record: { tier: string } }[], port: number): void {
  console.log('\nFirst start: created one demo key per tier (shown once, stored only as hashes):');
  for (const { key, record } of keys) console.log(`  ${record.tier.padEnd(10)} ${key}`);
  const pro = keys.find((k) => k.record.tier === 'pro') ?? keys[0];
  console.log(`\nTry:\n  curl -s -H "x-api-key: ${pro.key}" http://127.0.0.1:${port}/api/v2/language/models?page=1 | head -c 600\n`);
  console.log('Manage keys with: npm run -s keys -- list\n');
}

async function prepare(): Promise<boolean> {
  let options;
  try {
    options = resolveOptions(argv, process.env);
  } catch (error) {
    if (error instanceof ConfigError) return true; // main() reports it with the usage text
    throw error;
  }
  if (options === 'help') return true;
  try {
    await runBuild({ ...DEFAULT_BUILD_OPTIONS, dataDir: DATA_DIR, outDir: options.snapshotDir, log: (line) => console.log(`build: ${line}`) });
  } catch (error) {
    if (!(error instanceof DatasetError)) throw error;
    for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
    // Broken data must not take a running service down: serve the last good snapshot, if any.
    const previous = readCurrentManifest(options.snapshotDir);
    if (!previous) {
      console.error('build failed and there is no previous snapshot to serve; fix the datasets above');
      return false;
    }
    console.error(`build failed; serving the previous snapshot ${previous.manifest.build_id} until the datasets above are fixed`);
  }
  // Keys in a shared Redis are issued with the keys command (--store), never as demo keys.
  if (options.store !== 'file') return true;
  ensurePrivateDir(options.stateDir);
  const providers = JSON.parse(readFileSync(join(DATA_DIR, 'providers.json'), 'utf8')) as { slug: string }[];
  const demo = ensureDemoKeys(options.stateDir, providers.map((p) => p.slug));
  if (demo) printDemoKeys(demo, options.port || 8080);
  return true;
}

if (await prepare()) await main(argv, process.env);
else process.exitCode = 1;
