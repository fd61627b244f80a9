import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { flagsUsage, plainText } from '../../../../src/shared/flag-help.ts';
import { asText, flagDefaults, flagRow, integerFrom, readFlags, switchFlag } from '../../../../src/shared/flag-table.ts';
import { UsageError } from '../../../../src/shared/flags.ts';
import { throwsWith } from '../../../helpers/throws.ts';

const TABLE = {
  size: { value: 'N', env: 'SIZE', default: 3, parse: integerFrom(1, 9), help: 'how many' },
  name: flagRow<string | null>({ value: 'NAME', default: null, parse: asText, help: 'whose, see [Names](#names)' }),
  tag: { value: 'TAG', default: [] as string[], parse: (text: string) => [text], multiple: true, help: 'a tag' },
  loud: switchFlag('say more', 'LOUD'),
};

const read = suite('readFlags');

read('should take the flag, else its variable, else the default', () => {
  assert.is(readFlags(TABLE, ['--size', '5'], { SIZE: '7' }).values.size, 5);
  assert.is(readFlags(TABLE, [], { SIZE: '7' }).values.size, 7);
  assert.is(readFlags(TABLE, [], {}).values.size, 3);
  assert.equal(readFlags(TABLE, [], {}).values, flagDefaults(TABLE));
});

read('should say which flags were given, gather a repeated one and turn a switch on from its variable', () => {
  const { values, given } = readFlags(TABLE, ['--tag', 'a', '--tag', 'b'], { LOUD: '1' });
  assert.equal(values.tag, ['a', 'b']);
  assert.is(values.loud, true);
  assert.equal([...given], ['tag']);
});

read('should refuse a bad value, operands unless allowed, and take --help and -h', () => {
  throwsWith(() => readFlags(TABLE, ['--size', '10']), UsageError, /^--size must be an integer from 1 to 9, got "10"$/);
  throwsWith(() => readFlags(TABLE, ['extra']), UsageError, /Unexpected argument 'extra'/);
  assert.equal(readFlags(TABLE, ['extra'], {}, { positionals: true }).positionals, ['extra']);
  assert.is(readFlags(TABLE, ['-h']).help, true);
  assert.is(readFlags(TABLE, ['--help']).help, true);
});

read('should take --version, the usage winning when both are asked, even past a value it would refuse', () => {
  const asked = readFlags(TABLE, ['--version'], { SIZE: 'many' });
  assert.equal([asked.version, asked.help], [true, false]);
  assert.equal([readFlags(TABLE, ['--version', '-h']).help, readFlags(TABLE, ['--version', '-h']).version], [true, false]);
  assert.is(readFlags(TABLE, []).version, false);
});

read('should name the flag a mistyped one meant, even before the value it took', () => {
  throwsWith(() => readFlags(TABLE, ['--siez', '4']), UsageError, /^unknown option --siez; did you mean --size\?$/);
  throwsWith(() => readFlags(TABLE, ['--laud']), UsageError, /^unknown option --laud; did you mean --loud\?$/);
  throwsWith(() => readFlags(TABLE, ['-z']), UsageError, /^unknown option -z$/);
});

read.run();

const help = suite('flagsUsage');

help('should list each flag with its help in plain text, its variable and its default', () => {
  const lines = flagsUsage(TABLE).split('\n');
  assert.match(lines[0], /^ {2}--size N +how many \(env SIZE, default 3\)$/);
  assert.match(lines[1], /^ {2}--name NAME +whose, see Names$/);
  assert.match(lines[3], /^ {2}--loud +say more \(env LOUD=1\)$/);
  assert.match(lines[4], /^ {2}--help, -h +this text$/);
});

help('should read markdown code and links as their text', () => {
  assert.is(plainText('`--x` (see [Keys](#keys)) `[[USER]:PW@]HOST`'), '--x (see Keys) [[USER]:PW@]HOST');
});

help.run();
