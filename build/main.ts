/**
 * `npm run build -- [--data DIR] [--out DIR] [--page-size N] [--stats-days N] [--as-of DATE]
 *  [--force] [--gzip-level N] [--brotli-level N] [--min-samples N] [--image-first-party-only] [--quiet]`
 */
import { integerFlag, parseFlags, UsageError } from '../src/shared/flags.ts';
import { BodySchemaError, DEFAULT_BUILD_OPTIONS, runBuild, type BuildOptions } from './build.ts';
import { DatasetError, formatProblem } from './problems.ts';

const USAGE = `usage: npm run build -- [--data DIR] [--out DIR] [--page-size N] [--stats-days N] [--as-of DATE] [--force] [--gzip-level 1-9] [--brotli-level 1-11] [--min-samples N] [--image-first-party-only] [--keep N] [--quiet]`;

/** The options of a build, or 'help' when the usage was asked for. */
export function parseBuildArgs(argv: string[]): BuildOptions | 'help' {
  const { values: v } = parseFlags({
    args: argv,
    options: {
      data: { type: 'string' },
      out: { type: 'string' },
      'page-size': { type: 'string' },
      'stats-days': { type: 'string' },
      'as-of': { type: 'string' },
      force: { type: 'boolean' },
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
  const d = DEFAULT_BUILD_OPTIONS;
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
    log: v.quiet ? () => {} : (line) => console.log(line),
  };
}

async function main(): Promise<void> {
  try {
    const options = parseBuildArgs(process.argv.slice(2));
    if (options === 'help') console.log(USAGE);
    else await runBuild(options);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${USAGE}`);
      process.exitCode = 2;
    } else if (error instanceof DatasetError) {
      console.error(`build failed: ${error.problems.length} problem${error.problems.length === 1 ? '' : 's'} in the datasets; the current snapshot is unchanged`);
      for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
      process.exitCode = 1;
    } else if (error instanceof BodySchemaError) {
      console.error(`build failed: ${error.message}`);
      process.exitCode = 1;
    } else {
      console.error(`build failed: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  }
}

await main();
