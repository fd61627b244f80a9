import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countInDayBytes, dayFileText, parseDayRows } from '../../../../src/quota/usage-files.ts';

const day = suite('a day file: one key found in its bytes, and its rows read');

const KEYS = ['org:acme data', 'user:acme/bo critpt', 'user:acme/bo data', 'user:acme/bob data'];
const COUNTS = new Map([['org:acme data', 7], ['user:acme/bo critpt', 2], ['user:acme/bo data', 11], ['user:acme/bob data', 5]]);
const bytes = Buffer.from([...dayFileText('2026-11-29', 3, KEYS, COUNTS)].join(''));

day('should find a key by its whole line start, never a longer key it begins', () => {
  assert.is(countInDayBytes(bytes, 'user:acme/bo data'), 11);
  assert.is(countInDayBytes(bytes, 'user:acme/bob data'), 5);
  assert.is(countInDayBytes(bytes, 'org:acme data'), 7, 'the first row, right after the header');
  assert.is(countInDayBytes(bytes, 'user:acme/b data'), 0);
  assert.is(countInDayBytes(Buffer.alloc(0), 'org:acme data'), 0, 'no file: nothing served');
});

day('should read the rows as written, plain or escaped, the same as JSON.parse would', () => {
  const text = bytes.toString('utf8');
  const into = { nextJournal: 0, keys: [] as string[], served: [] as number[] };
  parseDayRows('x', text, text.indexOf('\n') + 1, Infinity, into);
  assert.equal(into.keys, KEYS);
  assert.equal(into.served, [7, 2, 11, 5]);
  const escaped = { nextJournal: 0, keys: [] as string[], served: [] as number[] };
  parseDayRows('x', '["user:a\\"b data",4]\n', 0, Infinity, escaped);
  assert.equal([escaped.keys, escaped.served], [['user:a"b data'], [4]], 'a key with an escape read by JSON.parse');
  assert.throws(() => parseDayRows('x', '["user:a data","x"]\n', 0, Infinity, { nextJournal: 0, keys: [], served: [] }), /bad row/);
});

day.run();
