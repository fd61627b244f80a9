import { appendFileSync, closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeScaleKeys } from '../../../../scripts/scale-state.ts';
import { headerAt, recordLine, type KeysHeader } from '../../../../src/keys/file-format.ts';
import { replacedLines } from '../../../../src/keys/file-replaced.ts';
import { readKeysFile } from '../../../../src/keys/file-read.ts';
import { readWhole } from '../../../../src/keys/file-lines.ts';
import { keysPath } from '../../../../src/keys/record.ts';
import { FileKeys } from '../../../../src/keys/file-keys.ts';

const replaced = suite('replacedLines: the records a later line of their key replaces');
const root = mkdtempSync(join(tmpdir(), 'bda-keys-replaced-'));
replaced.after(() => rmSync(root, { recursive: true, force: true }));

/** A folder of 300 keys, then changes: some keys once, some twice, one in a line written by hand (its fields in another order), two new keys. */
function changedFolder(name: string): string {
  const state = join(root, name);
  writeScaleKeys(state, 300);
  const records = readKeysFile(keysPath(state))!.records;
  const lines = [
    ...[3, 40, 41, 299].map((i) => recordLine({ ...records[i]!, critpt: !records[i]!.critpt })),
    ...[40, 41, 41].map((i) => recordLine({ ...records[i]!, quota: null, critpt: false, grants: [] })),
    `${JSON.stringify({ hash: records[7]!.hash, id: records[7]!.id, tier: records[7]!.tier, org: records[7]!.org, user: records[7]!.user, scope: records[7]!.scope, quota: records[7]!.quota, grants: records[7]!.grants, critpt: !records[7]!.critpt, created_at: records[7]!.created_at, revoked_at: null })}\n`,
    recordLine({ ...records[0]!, id: 'key_00000000aaaa', hash: 'a'.repeat(64) }),
    recordLine({ ...records[0]!, id: 'key_00000000aaab', hash: 'b'.repeat(64) }),
    recordLine({ ...records[0]!, id: 'key_00000000aaaa', hash: 'a'.repeat(64), revoked_at: '2026-07-01T00:00:00.000Z' }),
  ];
  appendFileSync(keysPath(state), lines.join(''));
  return state;
}

/** Each record line a whole read gives: whether it is replaced, as `replacedLines` says and as the truth (a later line of its key) is. */
function verdicts(state: string, header: KeysHeader | null = null): { said: boolean[]; truth: boolean[] } {
  const path = keysPath(state);
  const fd = openSync(path, 'r');
  try {
    const size = statSync(path).size;
    const test = replacedLines(fd, path, header ?? headerAt(path, readFileSync(path)), size);
    const ids: string[] = [];
    const said: boolean[] = [];
    readWhole(fd, path, size, (record, _line, at) => {
      ids.push(record.id);
      said.push(test(record.id, at));
    });
    return { said, truth: ids.map((id, i) => ids.indexOf(id, i + 1) !== -1) };
  } finally {
    closeSync(fd);
  }
}

replaced('should name exactly the lines a later line replaces, the header being right', () => {
  const { said, truth } = verdicts(changedFolder('right'));
  assert.equal(said, truth);
  assert.is(said.filter(Boolean).length, 9, 'keys 3, 7, 40, 41 and 299 before the changes; 40 once, 41 twice and the new key_00000000aaaa once among them');
});

replaced('should never name a key\'s last line, whatever the header says of where the changes start', () => {
  const state = changedFolder('wrong');
  const path = keysPath(state);
  const header = headerAt(path, readFileSync(path))!;
  for (const end of [0, 1, header.end - 100, header.end - 1, header.end + 1, header.end + 37, header.end + 300, statSync(path).size - 1]) {
    const { said, truth } = verdicts(state, { ...header, end });
    said.forEach((replacedSaid, i) => assert.ok(!replacedSaid || truth[i], `end ${end}: line ${i + 2} named replaced, and it is its key's last`));
  }
});

replaced('should leave the server\'s store holding the keys that are active as their last lines say', () => {
  const state = changedFolder('store');
  const store = FileKeys.open(state);
  try {
    assert.is(store.activeCount, readKeysFile(keysPath(state))!.records.filter((r) => r.revoked_at === null).length);
  } finally {
    store.close();
  }
});

replaced.run();
