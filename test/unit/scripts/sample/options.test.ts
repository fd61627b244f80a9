import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE_COUNTS, DEFAULT_OPTIONS, parseSampleArgs, type SampleOptions } from '../../../../scripts/sample/options.ts';
import { UsageError } from '../../../../src/shared/flags.ts';
import { throwsWith } from '../../../helpers/throws.ts';

const parse = suite('parseSampleArgs');

parse('should give the committed sample\'s options when nothing is given', () => {
  assert.equal(parseSampleArgs([]), DEFAULT_OPTIONS);
});

parse('should scale every count it is not given, and take the counts it is given as they are', () => {
  const options = parseSampleArgs(['--scale', '0.5', '--models', '7', '--seed', '3']) as SampleOptions;
  assert.equal(
    [options.models, options.creators, options.providers, options.arenaEntries, options.seed],
    [7, Math.round(BASE_COUNTS.creators / 2), Math.round(BASE_COUNTS.providers / 2), BASE_COUNTS.arenaEntries / 2, 3],
  );
  assert.is((parseSampleArgs(['--scale', '0.0001']) as SampleOptions).creators, 1, 'at least one of each');
  assert.is((parseSampleArgs(['--day', '30']) as SampleOptions).day, 30);
});

parse('should refuse bad values naming the flag, and name the flag a mistyped one meant', () => {
  throwsWith(() => parseSampleArgs(['--scale', '0']), UsageError, /^--scale must be a positive number, got "0"$/);
  throwsWith(() => parseSampleArgs(['--as-of', '2026-02-30']), UsageError, /^--as-of must be a date YYYY-MM-DD, got "2026-02-30"$/);
  throwsWith(() => parseSampleArgs(['--creators', '0']), UsageError, /^--creators must be an integer from 1 to 1000000, got "0"$/);
  throwsWith(() => parseSampleArgs(['--day', '367']), UsageError, /^--day must be an integer from 0 to 366, got "367"$/);
  throwsWith(() => parseSampleArgs(['--modles', '3']), UsageError, /did you mean --models\?$/);
  assert.is(parseSampleArgs(['--help', '--scale', 'x']), 'help');
});

parse.run();
