import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeScaleKeys } from '../../../../scripts/scale-state.ts';
import { revocation } from '../../../../src/keys/changes.ts';
import { readKeysFile, readKeysFileInTurns } from '../../../../src/keys/file.ts';
import { updateKeys } from '../../../../src/keys/file-append.ts';
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
  const sliced = await turnsDuring(() => readKeysFileInTurns(keysPath(stateDir), 0));
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
    await readKeysFileInTurns(keysPath(broken), 0).then(
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

read('should answer null when there is no key file yet', async () => {
  assert.is(await readKeysFileInTurns(join(tmpdir(), 'bda-no-such-folder', 'keys.json')), null);
});

read.run();
