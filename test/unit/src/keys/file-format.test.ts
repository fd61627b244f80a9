import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { headerLine, isLinesFormat, KEYS_FORMAT, lineStart, parseHeader, parseRecordLine, recordLine, type KeysHeader } from '../../../../src/keys/file-format.ts';
import { KeyStoreError } from '../../../../src/keys/record.ts';
import type { KeyRecord } from '../../../../src/state/key-record.ts';
import { throwsWith } from '../../../helpers/throws.ts';

const PATH = 'state/keys.json';

function record(overrides: Partial<KeyRecord> = {}): KeyRecord {
  return { grants: ['anvil-hosting'], hash: 'a'.repeat(64), id: 'key_0123456789ab', tier: 'commercial', org: 'acme', user: null, scope: 'org', quota: 50, critpt: true, created_at: '2026-11-20T09:00:00.000Z', revoked_at: null, name: null, expires_at: null, prefix: null, last4: null, previous: null, ...overrides };
}


const lines = suite('the key file format');

lines('should write a record as one line starting with its id, whatever the order of its fields, and read it back frozen', () => {
  const line = recordLine(record());
  assert.ok(line.startsWith(lineStart('key_0123456789ab')), line);
  assert.ok(line.endsWith('}\n'));
  assert.is(line.indexOf('\n'), line.length - 1, 'one line');
  const back = parseRecordLine(PATH, line.trimEnd(), 2);
  assert.equal(back, record());
  assert.ok(Object.isFrozen(back) && Object.isFrozen(back.grants));
});

lines('should name the line and the field of what is wrong, without quoting a hash', () => {
  throwsWith(() => parseRecordLine(PATH, JSON.stringify(record({ tier: 'gold' as never, quota: null })), 7), KeyStoreError, /^state\/keys\.json is not a valid key store: line 7: \/tier must be one of free, pro, commercial$/);
  throwsWith(() => parseRecordLine(PATH, JSON.stringify(record({ tier: 'pro' })), 3), KeyStoreError, /line 3: \/quota must be null/);
  throwsWith(() => parseRecordLine(PATH, `{"hash":"${'b'.repeat(64)}" oops`, 4), KeyStoreError, /^state\/keys\.json is not valid JSON at line 4 \((?!.*bbbbbbbbbbbbbbbbbbbb)/);
});

lines('should tell a format 2 header from the start of a format 1 file', () => {
  const header: KeysHeader = { format: KEYS_FORMAT, file: '0123456789abcdef', replaces: { file: null, ino: 12, size: 3400 }, records: 3, end: 900 };
  const text = headerLine(header);
  assert.ok(isLinesFormat(text));
  assert.equal(parseHeader(PATH, text.trimEnd()), header);
  assert.not.ok(isLinesFormat('{\n  "format": 1,\n  "keys": ['));
  assert.not.ok(isLinesFormat('{"format": 1, "keys": []}'));
  throwsWith(() => parseHeader(PATH, JSON.stringify({ ...header, end: -1 })), KeyStoreError, /line 1: \/end must be >= 0/);
});

lines.run();
