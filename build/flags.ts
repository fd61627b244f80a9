/**
 * The build's flags, each once: its default (from DEFAULT_BUILD_OPTIONS, where the build states
 * them), parser and help line, in the form of src/shared/flag-table.ts. build/main.ts reads the
 * command line from it and writes the options part of its --help from it.
 */
import { asText, flagRow, integerFrom, switchFlag, type FlagTable } from '../src/shared/flag-table.ts';
import { DEFAULT_BUILD_OPTIONS } from './build-options.ts';
import { RELEASE_VALID_DAYS } from './publish/release.ts';

const d = DEFAULT_BUILD_OPTIONS;

export const BUILD_FLAGS = {
  check: switchFlag(
    'check the data and every answer it makes, as a build does, and write nothing: every problem of ' +
      'every file in one run; exit 1 if any',
  ),
  data: { value: 'DIR', default: d.dataDir, parse: asText, help: 'the datasets' },
  out: { value: 'DIR', default: d.outDir, parse: asText, help: 'the snapshot folder the server reads' },
  'page-size': {
    value: 'N',
    default: d.pageSize,
    parse: integerFrom(1, 10000),
    help: 'items per page of the paginated lists',
  },
  'stats-days': {
    value: 'N',
    default: d.statsDays,
    parse: integerFrom(1, 90),
    help: 'days of measurements the medians and percentiles cover',
  },
  'as-of': flagRow<string | undefined>({
    value: 'DATE',
    default: undefined,
    shownDefault: "the newest measurement's time",
    parse: asText,
    help: 'end of those days, YYYY-MM-DD or an ISO 8601 time',
  }),
  force: switchFlag('build even when the inputs are unchanged, compressing every body anew'),
  'gzip-level': {
    value: 'N',
    default: d.levels.gzip,
    parse: integerFrom(1, 9),
    help: 'gzip level of the stored gzip variants, 1-9',
  },
  'brotli-level': {
    value: 'N',
    default: d.levels.brotli,
    parse: integerFrom(1, 11),
    help: 'brotli level of the stored br variants, 1-11',
  },
  'min-samples': {
    value: 'N',
    default: d.arena.minSamples,
    parse: integerFrom(0, 1e9),
    help: 'appearances an image or video arena entry needs to be ranked and listed',
  },
  'image-first-party-only': switchFlag('list only first-party entries on the image leaderboards'),
  keep: { value: 'N', default: d.keep, parse: integerFrom(0, 100), help: 'earlier builds kept beside the current one' },
  history: {
    value: 'N',
    default: d.historyBuilds,
    parse: integerFrom(1, 1000),
    help: "builds the history of changes remembers (GET /api/v2/changes, a model's history); older ones are folded in",
  },
  publish: flagRow<string | undefined>({
    value: 'DIR',
    default: undefined,
    shownDefault: 'none',
    parse: asText,
    help:
      'after the build, publish it to DIR as the next signed release, for servers that pull from an origin; ' +
      'needs --sign',
  }),
  sign: flagRow<string | undefined>({
    value: 'FILE',
    default: undefined,
    shownDefault: 'none',
    parse: asText,
    help: 'the private key a published release is signed with (npm run signing-key -- create)',
  }),
  'valid-days': {
    value: 'N',
    default: RELEASE_VALID_DAYS,
    parse: integerFrom(1, 3650),
    help: 'days a published release is valid: publish again before then, or servers warn and take it no more',
  },
  quiet: switchFlag('no progress lines'),
} satisfies FlagTable;
