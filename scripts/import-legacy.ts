/**
 * `npm run import:legacy -- FILE [options]`: merge a saved body of the legacy language route into
 * a data folder (scripts/legacy/import.ts, which says how), validated in full before anything is
 * written. The options are a flag table (src/shared/flag-table.ts): --help lists them.
 */
import { fileURLToPath } from 'node:url';
import { formatProblem } from '../build/problems.ts';
import { flagsUsage } from '../src/shared/flag-help.ts';
import { asText, calendarDate, flagRow, readFlags, switchFlag, type FlagTable } from '../src/shared/flag-table.ts';
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

function main(): void {
  let read;
  try {
    read = readFlags(IMPORT_FLAGS, process.argv.slice(2), {}, { positionals: true });
    if (!read.help && !read.version && read.positionals.length !== 1)
      throw new UsageError(`give one FILE, the saved body; got ${read.positionals.length}`);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n(npm run import:legacy -- --help lists the options)`);
    process.exitCode = 2;
    return;
  }
  const { positionals, values, help, version } = read;
  if (help || version) {
    console.log(help ? USAGE : versionLine({}));
    return;
  }
  try {
    importLegacy(positionals[0]!, values.data, { asOf: values['as-of'], dryRun: values['dry-run'] }, (l) =>
      console.log(l),
    );
  } catch (error) {
    if (!(error instanceof ImportError)) throw error;
    console.error(`import failed: ${error.message}`);
    for (const problem of error.problems) console.error(`  ${formatProblem(problem)}`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
