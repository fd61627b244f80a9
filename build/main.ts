/**
 * `npm run build -- [options]`: the datasets of a data folder into a snapshot (see USAGE).
 */
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsUsage } from '../src/shared/flag-help.ts';
import { readFlags } from '../src/shared/flag-table.ts';
import { CONSOLE_OUTPUT, type CommandOutput } from '../src/shared/command-output.ts';
import { UsageError } from '../src/shared/flags.ts';
import { MANIFEST_FORMAT } from '../src/shared/manifest.ts';
import { versionLine } from '../src/shared/version.ts';
import type { BuildOptions } from './build-options.ts';
import { runBuild } from './build.ts';
import { BUILD_FLAGS } from './flags.ts';
import { checkData } from './check.ts';
import { publishRelease } from './publish/release.ts';
import { signingKeyOf } from '../src/shared/release.ts';
import { DatasetError, formatProblem } from './problems.ts';

const USAGE = `usage: npm run build -- [options]

Build the datasets of a data folder into a snapshot: every answer precomputed and compressed,
checked against its schema, written to OUT/<build-id>/, read back, then OUT/current switched to
it atomically (a running server follows within a second). Nothing changes when a build fails.

options:
${flagsUsage(BUILD_FLAGS)}

The build id and the manifest carry the data's as-of time, or SOURCE_DATE_EPOCH (seconds
since 1970) when it is set, never the time of the build: two builds of the same inputs into
two empty folders are byte-identical, file for file.`;

/** SOURCE_DATE_EPOCH, when set: whole seconds since 1970. */
function sourceDateEpoch(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,12}$/.test(text))
    throw new UsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** Where and how a build is published, read before it is built: a key that cannot sign fails first, not after. */
interface PublishOptions {
  to: string;
  signingKey: KeyObject;
  validDays: number;
}

function publishOptions(to: string | undefined, keyFile: string | undefined, validDays: number): PublishOptions | null {
  if (to === undefined && keyFile === undefined) return null;
  if (to === undefined || keyFile === undefined) throw new UsageError('--publish DIR and --sign FILE go together');
  let pem: string;
  try {
    pem = readFileSync(keyFile, 'utf8');
  } catch (error) {
    throw new UsageError(`--sign ${keyFile}: ${(error as Error).message}`);
  }
  return { to, signingKey: signingKeyOf(pem), validDays };
}

/**
 * The options of a build, whether only to check (`--check`), or 'help' or 'version' when that was
 * asked for; its progress lines go to `out`.
 */
export function parseBuildArgs(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  out: (line: string) => void = CONSOLE_OUTPUT.out,
): (BuildOptions & { check: boolean; publish: PublishOptions | null }) | 'help' | 'version' {
  const { values: v, help, version } = readFlags(BUILD_FLAGS, argv);
  if (help || version) return help ? 'help' : 'version';
  return {
    dataDir: v.data,
    outDir: v.out,
    pageSize: v['page-size'],
    statsDays: v['stats-days'],
    asOf: v['as-of'],
    force: v.force,
    arena: { minSamples: v['min-samples'], imageFirstPartyOnly: v['image-first-party-only'] },
    levels: { gzip: v['gzip-level'], brotli: v['brotli-level'] },
    keep: v.keep,
    historyBuilds: v.history,
    publish: publishOptions(v.publish, v.sign, v['valid-days']),
    sourceDateEpoch: sourceDateEpoch(env.SOURCE_DATE_EPOCH),
    log: v.quiet ? () => {} : out,
    check: v.check,
  };
}

/**
 * The build command: what it prints goes to `io`, and its exit status is returned (0 done, 1 the
 * build or check failed, 2 a usage error). The process runs it; tests run it in-process too.
 */
export async function run(argv: string[], io: CommandOutput = CONSOLE_OUTPUT, env = process.env): Promise<number> {
  let checking = false;
  try {
    const options = parseBuildArgs(argv, env, io.out);
    if (options === 'help') io.out(USAGE);
    else if (options === 'version') io.out(versionLine({ snapshot: MANIFEST_FORMAT }));
    else if ((checking = options.check)) checkData(options);
    else {
      const summary = await runBuild(options);
      if (options.publish)
        publishRelease({ ...options.publish, buildDir: summary.snapshotDir, now: new Date(), log: options.log });
    }
    return 0;
  } catch (error) {
    const failed = checking ? 'check failed' : 'build failed';
    if (error instanceof UsageError) {
      io.err(`${error.message}\n(npm run build -- --help lists the options)`);
      return 2;
    }
    if (error instanceof DatasetError) {
      const unchanged = failed === 'build failed' ? '; the current snapshot is unchanged' : '';
      const problems = `${error.problems.length} problem${error.problems.length === 1 ? '' : 's'}`;
      io.err(`${failed}: ${problems} in the datasets${unchanged}`);
      for (const problem of error.problems) io.err(`  ${formatProblem(problem)}`);
    } else io.err(`${failed}: ${(error as Error).message}`); // a BodySchemaError's message names the body
    return 1;
  }
}

// Run as the command, not when a test imports run or parseBuildArgs.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await run(process.argv.slice(2));
