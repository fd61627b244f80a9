import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_BUILD_OPTIONS } from '../../../build/build-options.ts';
import { BUILD_FLAGS } from '../../../build/flags.ts';
import { readFlags } from '../../../src/shared/flag-table.ts';
import { UsageError } from '../../../src/shared/flags.ts';
import { throwsWith } from '../../helpers/throws.ts';

const flags = suite('the build\'s flag table');

flags('should default to the build\'s own defaults', () => {
  const { values: v } = readFlags(BUILD_FLAGS, []);
  const d = DEFAULT_BUILD_OPTIONS;
  assert.equal([v.data, v.out, v['page-size'], v['stats-days'], v.keep], [d.dataDir, d.outDir, d.pageSize, d.statsDays, d.keep]);
  assert.equal({ gzip: v['gzip-level'], brotli: v['brotli-level'] }, d.levels);
  assert.equal({ minSamples: v['min-samples'], imageFirstPartyOnly: v['image-first-party-only'] }, d.arena);
  assert.equal([v.force, v.check, v.quiet, v['as-of']], [false, false, false, undefined]);
});

flags('should keep each level\'s bounds', () => {
  assert.is(readFlags(BUILD_FLAGS, ['--brotli-level', '11']).values['brotli-level'], 11);
  throwsWith(() => readFlags(BUILD_FLAGS, ['--gzip-level', '10']), UsageError, /^--gzip-level must be an integer from 1 to 9, got "10"$/);
});

flags('should name the flag a mistyped one meant', () => {
  throwsWith(() => readFlags(BUILD_FLAGS, ['--gzip-levl', '3']), UsageError, /^unknown option --gzip-levl; did you mean --gzip-level\?$/);
  throwsWith(() => readFlags(BUILD_FLAGS, ['--chek']), UsageError, /^unknown option --chek; did you mean --check\?$/);
});

flags.run();
