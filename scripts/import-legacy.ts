/**
 * `npm run import:legacy -- FILE [options]`: merge a saved body of the legacy language route into
 * a data folder (scripts/legacy/import.ts, which says how), validated in full before anything is
 * written. The options are a flag table (src/shared/flag-table.ts): --help lists them.
 */
import { fileURLToPath } from 'node:url';
import { formatProblem } from '../build/problems.ts';
import { flagsUsage } from '../src/shared/flag-help.ts';
import { asText, calendarDate, flagRow, readFlags, switchFlag, type FlagTable } from '../src/shared/flag-table.ts';
import { CONSOLE_OUTPUT, type CommandOutput } from '../src/shared/command-output.ts';
import { UsageError } from '../src/shared/flags.ts';
import { versionLine } from '../src/shared/version.ts';
import { ImportError, importLegacy } from './legacy/import.ts';

export const IMPORT_FLAGS = {
  data: { value: 'DIR', default: 'data', parse: asText, help: 'the data folder merged into (and validated whole)' },
  'as-of': flagRow<string | undefined>({
    value: 'YYYY-MM-DD',
    default: undefined,
    shownDefault: 'the newest release date in the body',
    parse: calendarDate,
    help:
      'the day the body was saved: its records are dated then (noon UTC), ' +
      "or at the folder's newest measurement if later",
  }),
  'dry-run': switchFlag('say what would change, and write nothing'),
} satisfies FlagTable;

const USAGE =
  'usage: npm run import:legacy -- FILE [options]\n' +
  'FILE is a saved body of the legacy language route (/api/v2/data/llms/models), as JSON.\n' +
  flagsUsage(IMPORT_FLAGS);

/**
 * The import command: what it prints goes to `io`, and its exit status is returned (0 done, 1 the
 * import failed and wrote nothing, 2 a usage error). The process runs it; tests run it in-process too.
 */
export function run(argv: string[], io: CommandOutput = CONSOLE_OUTPUT): number {
  let read;
  try {
    read = readFlags(IMPORT_FLAGS, argv, {}, { positionals: true });
    if (!read.help && !read.version && read.positionals.length !== 1)
      throw new UsageError(`give one FILE, the saved body; got ${read.positionals.length}`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`${error.message}\n(npm run import:legacy -- --help lists the options)`);
    return 2;
  }
  const { positionals, values, help, version } = read;
  if (help || version) {
    io.out(help ? USAGE : versionLine({}));
    return 0;
  }
  try {
    importLegacy(positionals[0]!, values.data, { asOf: values['as-of'], dryRun: values['dry-run'] }, io.out);
    return 0;
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    io.err(`import failed: ${error.message}`);
    for (const problem of error.problems) io.err(`  ${formatProblem(problem)}`);
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = run(process.argv.slice(2));
