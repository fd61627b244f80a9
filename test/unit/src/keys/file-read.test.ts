import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeScaleKeys } from '../../../../scripts/scale-state.ts';
import { revocation } from '../../../../src/keys/changes.ts';
import { readKeysFile, readKeysFileInTurns } from '../../../../src/keys/file-read.ts';
import { updateKeys } from '../../../../src/keys/file-append.ts';
import { recordLine } from '../../../../src/keys/file-format.ts';
import { KeyStoreError, keysPath } from '../../../../src/keys/record.ts';

const read = suite('readKeysFileInTurns: the key file read in slices between turns');
const KEYS = 2000;
let stateDir = '';

read.before(() => {
  stateDir = mkdtempSync(join(tmpdir(), 'bda-keys-turns-'));
  writeScaleKeys(stateDir, KEYS);
  const first = readKeysFile(keysPath(stateDir))!.records[0]!;
  updateKeys(stateDir, revocation(first.id), 0);
});
read.after(() => rmSync(stateDir, { recursive: true, force: true }));

/** Turns of the event loop that ran while `work` was under way. */
async function turnsDuring<T>(work: () => T | Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let done = false;
  const tick = () => {
    if (done) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  const value = await work();
  done = true;
  return { value, turns };
}

read('should read what readKeysFile reads: the same records (a later line replacing an earlier one), header, end and stamp', async () => {
  const whole = readKeysFile(keysPath(stateDir))!;
  const inTurns = (await readKeysFileInTurns(keysPath(stateDir)))!;
  assert.equal(inTurns, whole);
  assert.is(inTurns.records.length, KEYS);
  assert.ok(inTurns.records[0]!.revoked_at !== null, 'the revocation line replaced the first record');
});

read('should let the event loop turn between slices, where a read in one piece lets none', async () => {
  // Slices of 0 ms: a turn after every 256 records.
  const sliced = await turnsDuring(() => readKeysFileInTurns(keysPath(stateDir), {}, 0));
  assert.ok(sliced.turns >= Math.floor(KEYS / 256), `${sliced.turns} turns`);
  const whole = await turnsDuring(() => readKeysFile(keysPath(stateDir)));
  assert.is(whole.turns, 0);
});

read('should refuse a bad line as readKeysFile does, and close the file', async () => {
  const broken = mkdtempSync(join(tmpdir(), 'bda-keys-turns-bad-'));
  try {
    writeScaleKeys(broken, 600);
    appendFileSync(keysPath(broken), '{"id": "not a record"}\n');
    const descriptors = readdirSync('/proc/self/fd').length;
    let wholeError: unknown;
    try {
      readKeysFile(keysPath(broken));
    } catch (error) {
      wholeError = error;
    }
    await readKeysFileInTurns(keysPath(broken), {}, 0).then(
      () => assert.unreachable('a bad line should be refused'),
      (error: Error) => {
        assert.instance(error, KeyStoreError);
        assert.is(error.message, (wholeError as Error).message);
        assert.match(error.message, 'line 602');
      },
    );
    assert.is(readdirSync('/proc/self/fd').length, descriptors, 'no descriptor left open');
  } finally {
    rmSync(broken, { recursive: true, force: true });
  }
});

read('should keep only the keys a filter lets through, as the whole read filtered would, each as its last line says, in order', async () => {
  const whole = readKeysFile(keysPath(stateDir))!.records;
  const first = whole[0]!;
  for (const filter of [{ org: first.org }, { org: 'org5', tier: 'pro' as const }, { user: 'user-4' }, { id: first.id }, { org: 'no-such-org' }]) {
    const filtered = (await readKeysFileInTurns(keysPath(stateDir), filter))!.records;
    assert.equal(filtered, whole.filter((r) => Object.entries(filter).every(([field, value]) => r[field as keyof typeof r] === value)), JSON.stringify(filter));
  }
  const mine = (await readKeysFileInTurns(keysPath(stateDir), { org: first.org }))!.records;
  assert.ok(mine.length > 1 && mine[0]!.id === first.id && mine[0]!.revoked_at !== null, 'the revocation line replaced the first record');
});

read("should go by a key's last line when a hand edit changed a field the filter reads", async () => {
  const edited = mkdtempSync(join(tmpdir(), 'bda-keys-turns-edit-'));
  try {
    writeScaleKeys(edited, 300);
    const [a, b] = readKeysFile(keysPath(edited))!.records;
    appendFileSync(keysPath(edited), recordLine({ ...a!, org: 'elsewhere' }));
    assert.not.ok((await readKeysFileInTurns(keysPath(edited), { org: a!.org }))!.records.some((r) => r.id === a!.id), 'its last line is of another org');
    assert.equal((await readKeysFileInTurns(keysPath(edited), { org: 'elsewhere' }))!.records.map((r) => r.id), [a!.id]);
    assert.ok((await readKeysFileInTurns(keysPath(edited), { org: b!.org }))!.records.some((r) => r.id === b!.id));
  } finally {
    rmSync(edited, { recursive: true, force: true });
  }
});

read('should answer null when there is no key file yet', async () => {
  assert.is(await readKeysFileInTurns(join(tmpdir(), 'bda-no-such-folder', 'keys.json')), null);
});

read.run();
