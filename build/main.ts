/**
 * `npm run build -- [options]`: the datasets of a data folder into a snapshot (see USAGE).
 */
import { integerFlag, parseFlags, UsageError } from '../src/shared/flags.ts';
import { DEFAULT_BUILD_OPTIONS, runBuild, type BuildOptions } from './build.ts';
import { BodySchemaError } from './check-bodies.ts';
import { checkData } from './check.ts';
import { DatasetError, formatProblem } from './problems.ts';

const d = DEFAULT_BUILD_OPTIONS;
const USAGE = `usage: npm run build -- [--check] [--data DIR] [--out DIR] [--page-size N] [--stats-days N] [--as-of DATE] [--force] [--gzip-level 1-9] [--brotli-level 1-11] [--min-samples N] [--image-first-party-only] [--keep N] [--quiet]

Build the datasets of a data folder into a snapshot: every answer precomputed and compressed,
checked against its schema, written to OUT/<build-id>/, read back, then OUT/current switched to
it atomically (a running server follows within a second). Nothing changes when a build fails.

options:
  --check           check the data and every answer it makes, as a build does, and write
                    nothing: every problem of every file in one run; exit 1 if any
  --data DIR        the datasets (default: ${d.dataDir})
  --out DIR         the snapshot folder the server reads (default: ${d.outDir})
  --page-size N     items per page of the paginated lists (default: ${d.pageSize})
  --stats-days N    days of measurements the medians and percentiles cover (default: ${d.statsDays})
  --as-of DATE      end of those days, YYYY-MM-DD or an ISO 8601 time (default: the newest
                    measurement's time)
  --force           build even when the inputs are unchanged, compressing every body anew
  --gzip-level N    gzip level of the stored gzip variants, 1-9 (default: ${d.levels.gzip})
  --brotli-level N  brotli level of the stored br variants, 1-11 (default: ${d.levels.brotli})
  --min-samples N   appearances an image or video arena entry needs to be ranked and listed
                    (default: ${d.arena.minSamples})
  --image-first-party-only
                    list only first-party entries on the image leaderboards
  --keep N          earlier builds kept beside the current one (default: ${d.keep})
  --quiet           no progress lines
  --help            this text

The build id and the manifest carry the data's as-of time, or SOURCE_DATE_EPOCH (seconds
since 1970) when it is set, never the time of the build: two builds of the same inputs into
two empty folders are byte-identical, file for file.`;

/** SOURCE_DATE_EPOCH, when set: whole seconds since 1970. */
function sourceDateEpoch(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^\d{1,12}$/.test(text)) throw new UsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The options of a build, whether only to check (`--check`), or 'help' when the usage was asked for. */
export function parseBuildArgs(argv: string[], env: NodeJS.ProcessEnv = process.env): (BuildOptions & { check: boolean }) | 'help' {
  const { values: v } = parseFlags({
    args: argv,
    options: {
      data: { type: 'string' },
      out: { type: 'string' },
      'page-size': { type: 'string' },
      'stats-days': { type: 'string' },
      'as-of': { type: 'string' },
      force: { type: 'boolean' },
      check: { type: 'boolean' },
      'gzip-level': { type: 'string' },
      'brotli-level': { type: 'string' },
      quiet: { type: 'boolean' },
      'min-samples': { type: 'string' },
      'image-first-party-only': { type: 'boolean' },
      keep: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (v.help) return 'help';
  return {
    dataDir: v.data ?? d.dataDir,
    outDir: v.out ?? d.outDir,
    pageSize: integerFlag('page-size', v['page-size'], d.pageSize, 1, 10000),
    statsDays: integerFlag('stats-days', v['stats-days'], d.statsDays, 1, 90),
    asOf: v['as-of'],
    force: v.force ?? false,
    arena: { minSamples: integerFlag('min-samples', v['min-samples'], d.arena.minSamples, 0, 1e9), imageFirstPartyOnly: v['image-first-party-only'] ?? d.arena.imageFirstPartyOnly },
    levels: { gzip: integerFlag('gzip-level', v['gzip-level'], d.levels.gzip, 1, 9), brotli: integerFlag('brotli-level', v['brotli-level'], d.levels.brotli, 1, 11) },
    keep: integerFlag('keep', v.keep, d.keep, 0, 100),
    sourceDateEpoch: sourceDateEpoch(env.SOURCE_DATE_EPOCH),
    log: v.quiet ? () => {} : (line) => console.log(line),
    check: v.check ?? false,
  };
}

async function main(): Promise<void> {
  let checking = false;
  try {
    const options = parseBuildArgs(process.argv.slice(2));
    if (options === 'help') console.log(USAGE);
    else if ((checking = options.check)) checkData(options);
    else await runBuild(options);
  } catch (error) {
    const failed = checking ? 'check failed' : 'build failed';
    if (error instanceof UsageError) {
      console.error(`${error.message}\n(npm run build -- --help lists the options)`);
      process.exitCode = 2;
    } else if (error instanceof DatasetError) {
      const unchanged = failed === 'build failed' ? '; the current snapshot is unchanged' : '';
      console.error(`${failed}: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} in the datasets${unchanged}`);
      for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
      process.exitCode = 1;
    } else if (error instanceof BodySchemaError) {
      console.error(`${failed}: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(`${failed}: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}

await main();
