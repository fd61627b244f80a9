/**
 * The key store at scale, each bound relative to a baseline measured here: a change costs the
 * server's next check about what it costs with a hundred keys, and costs the keys command a
 * fraction of what reading the whole store costs. The absolute figures are the bench's
 * (scripts/bench/keys-scale.ts) and the soak's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { revokeKey } from '../../src/keys/changes.ts';
import { FileKeys } from '../../src/keys/file-keys.ts';
import { scaleKeyId, writeScaleKeys } from '../../scripts/scale-state.ts';

const LARGE = 50_000;
/** A state folder holding `n` keys, as the keys command writes them (the scale benches' keys; a tenth revoked). */
function folder(n: number): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'keys-scale-')), 'state');
  writeScaleKeys(dir, n);
  return dir;
}

const ms = (since: number) => performance.now() - since;

/** For each of `times` revocations: how long the keys command's change took, and the server's next check after it. */
function changes(dir: string, times: number): { command: number[]; check: number[] } {
  const store = FileKeys.open(dir);
  const found = { command: [] as number[], check: [] as number[] };
  try {
    for (let i = 0; i < times; i++) {
      let t0 = performance.now();
      revokeKey(dir, scaleKeyId(i * 7)); // never one of the revoked tenth (i % 10 === 9)
      found.command.push(ms(t0));
      t0 = performance.now();
      assert.is(store.check(), null);
      found.check.push(ms(t0));
    }
  } finally {
    store.close();
  }
  return found;
}

const scale = suite('the key store at scale');

scale(`should read a change at ${LARGE.toLocaleString('en')} keys about as fast as at 100, and change a key for a fraction of a whole read`, () => {
  const small = folder(100);
  const large = folder(LARGE);
  try {
    // Baselines: the small store's slowest, never under a millisecond (a change is a stat, a
    // read of a line and its parse: well under that); the whole read of the large store, its fastest.
    const baseline = Math.max(1, ...changes(small, 2).check);
    const wholeReads = [0, 1].map(() => {
      const t0 = performance.now();
      FileKeys.open(large).close();
      return ms(t0);
    });
    const wholeRead = Math.min(...wholeReads);
    // The large case: its fastest of five, since a busy machine or a collection only ever lengthens one.
    const { command, check } = changes(large, 5);
    const checked = Math.min(...check);
    const changed = Math.min(...command);
    // Read whole, a change cost the check 300-500 times the baseline at 50,000 keys; as a line, about the same.
    assert.ok(checked < 10 * baseline, `the check after a change took ${checked.toFixed(2)} ms with ${LARGE} keys, ${baseline.toFixed(2)} ms with 100`);
    // The keys command reads the file's bytes and appends a line; parsing every key took longer than the whole read.
    assert.ok(changed < wholeRead / 3, `a revocation took ${changed.toFixed(1)} ms; reading the store whole ${wholeRead.toFixed(1)} ms`);
  } finally {
    rmSync(join(small, '..'), { recursive: true, force: true });
    rmSync(join(large, '..'), { recursive: true, force: true });
  }
});

scale.run();
