/**
 * `npm start [-- flags]`: the embedded default. Builds the snapshot from data/ when it is
 * missing or the inputs changed (the build's own digest check makes an unchanged start
 * cheap), creates one demo key per tier on the very first start and prints them once, then
 * runs the server with the same flags as dist/server.mjs. What it prints names the address the
 * server really listens on and the state folder it really uses.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_BUILD_OPTIONS } from '../build/build-options.ts';
import { runBuild } from '../build/build.ts';
import { DatasetError, formatProblem } from '../build/problems.ts';
import { readCurrentManifest } from '../build/pack/snapshot-dir.ts';
import { DEFAULT_OPTIONS, resolveOptions, usage } from '../src/config.ts';
import { FORMATS } from '../src/formats.ts';
import { versionLine } from '../src/shared/version.ts';
import { UsageError } from '../src/shared/flags.ts';
import { ensureDemoKeys } from '../src/keys/changes.ts';
import type { IssuedKey } from '../src/keys/record.ts';
import { main } from '../src/main.ts';
import { ensurePrivateDir } from '../src/shared/state-files.ts';
import { shellWord } from './shell-word.ts';

const argv = process.argv.slice(2);
const DATA_DIR = 'data';

/** The keys command for this state folder, ready to paste. */
function keysCommand(stateDir: string, command: string): string {
  const state =
    stateDir === DEFAULT_OPTIONS.stateDir && process.env.STATE_DIR === undefined
      ? ''
      : ` --state ${shellWord(stateDir)}`;
  return `npm run -s keys -- ${command}${state}`;
}

function printDemoKeys(keys: IssuedKey[], url: string, stateDir: string): void {
  console.log('\nFirst start: created one demo key per tier (shown once, stored only as hashes):');
  for (const { key, record } of keys) console.log(`  ${record.tier.padEnd(10)} ${key}`);
  const pro = keys.find((k) => k.record.tier === 'pro') ?? keys[0];
  console.log(`\nTry:\n  curl -s -H "x-api-key: ${pro.key}" "${url}/api/v2/language/models?page=1" | head -c 600\n`);
  console.log(`Manage keys with: ${keysCommand(stateDir, 'list')}\n`);
}

/**
 * Build if needed and prepare the key store; the demo keys when they were just made, false when the
 * server must not start.
 */
async function prepare(): Promise<{ demo: IssuedKey[] | null; stateDir: string } | null | false> {
  let options;
  try {
    options = resolveOptions(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) return null; // main() reports it with the usage text
    throw error;
  }
  if (options === 'help') {
    console.log(
      'usage: npm start [-- options]\n\n' +
        'Builds data/ into the snapshot folder when it changed, creates demo keys on the first start,\n' +
        `then runs the server with these options:\n\n${usage(null)}`,
    );
    process.exit(0);
  }
  if (options === 'version') {
    console.log(versionLine(FORMATS));
    process.exit(0);
  }
  try {
    await runBuild({
      ...DEFAULT_BUILD_OPTIONS,
      dataDir: DATA_DIR,
      outDir: options.snapshotDir,
      log: (line) => console.log(`build: ${line}`),
    });
  } catch (error) {
    if (!(error instanceof DatasetError)) throw error;
    for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
    // Broken data must not take a running service down: serve the last good snapshot, if any.
    const previous = readCurrentManifest(options.snapshotDir);
    if (!previous) {
      console.error('build failed and there is no previous snapshot to serve; fix the datasets above');
      return false;
    }
    console.error(
      `build failed; serving the previous snapshot ${previous.manifest.build_id} until the datasets above are fixed`,
    );
  }
  // Keys in a shared Redis are issued with the keys command (--store), never as demo keys.
  if (options.store !== 'file') return { demo: null, stateDir: options.stateDir };
  ensurePrivateDir(options.stateDir);
  const providers = JSON.parse(readFileSync(join(DATA_DIR, 'providers.json'), 'utf8')) as { slug: string }[];
  // A store with no usable key is the server's to warn of (it says so as it starts).
  const demo = ensureDemoKeys(
    options.stateDir,
    providers.map((p) => p.slug),
  );
  return { demo, stateDir: options.stateDir };
}

const prepared = await prepare();
if (prepared === false) process.exitCode = 1;
else {
  await main(argv, process.env, (running) => {
    if (prepared?.demo) printDemoKeys(prepared.demo, running.url, prepared.stateDir);
  });
}
