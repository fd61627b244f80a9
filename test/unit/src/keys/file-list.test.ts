/**
 * The admin listener's list in pieces (keyPiecesInTurns) against the whole read it replaces
 * (readKeysFileInTurns): the same keys in the same order, whatever the filter, the changes after
 * the header's end, a compaction, or the slices' length; what a whole read refuses refused before
 * the first piece; no file, null.
 */
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scaleKeyId, writeScaleKeys } from '../../../../scripts/scale-state.ts';
import { creation, critptApproval, providerGrant, revocation } from '../../../../src/keys/changes.ts';
import { COMPACT_AFTER_LINES, updateKeys } from '../../../../src/keys/file-append.ts';
import { recordLine } from '../../../../src/keys/file-format.ts';
import { keyPiecesInTurns } from '../../../../src/keys/file-list.ts';
import { readKeysFile, readKeysFileInTurns } from '../../../../src/keys/file-read.ts';
import { KeyStoreError, keysPath, type KeyFilter } from '../../../../src/keys/record.ts';
import type { KeyRecord } from '../../../../src/state/key-record.ts';

const clock = { now: () => Date.UTC(2026, 10, 28, 9, 0, 0) };
const roots: string[] = [];
process.on('exit', () => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function folder(n: number): string {
  const root = mkdtempSync(join(tmpdir(), 'bda-file-list-'));
  roots.push(root);
  writeScaleKeys(join(root, 'state'), n);
  return join(root, 'state');
}

async function listed(state: string, filter: KeyFilter = {}, sliceMs?: number): Promise<{ records: KeyRecord[]; pieces: number } | null> {
  const pieces = await keyPiecesInTurns(keysPath(state), filter, sliceMs);
  if (pieces === null) return null;
  const records: KeyRecord[] = [];
  let count = 0;
  for await (const piece of pieces) {
    records.push(...piece);
    count++;
  }
  return { records, pieces: count };
}

const FILTERS: KeyFilter[] = [{}, { org: 'org1' }, { tier: 'commercial' }, { org: 'acme', user: 'ana' }];

/** The lists of every filter, in pieces and whole, the same. */
async function sameAsWhole(state: string): Promise<void> {
  for (const filter of FILTERS) {
    const whole = (await readKeysFileInTurns(keysPath(state), filter))!.records;
    const inPieces = (await listed(state, filter, 0))!;
    assert.equal(inPieces.records, whole, JSON.stringify(filter));
  }
}

const list = suite('keyPiecesInTurns: a list of keys in pieces');

list('should give the keys a whole read gives, in its order, after changes, new keys and a compaction', async () => {
  const state = folder(1000);
  await sameAsWhole(state);
  // Changes after the header's end: a key revoked, another granted and approved, new keys between them.
  updateKeys(state, revocation(scaleKeyId(10), clock), 0);
  updateKeys(state, creation({ tier: 'pro', org: 'acme', user: 'ana', grants: [], critpt: false }, clock), 0);
  updateKeys(state, providerGrant(scaleKeyId(5), 'cobalt-cloud'), 0);
  updateKeys(state, creation({ tier: 'commercial', org: 'acme', user: 'ana', grants: [], critpt: false }, clock), 0);
  updateKeys(state, critptApproval(scaleKeyId(5), false), 0);
  await sameAsWhole(state);
  const all = (await listed(state, {}, 0))!;
  assert.ok(all.pieces > 1, `a slice of 0 ms a piece: ${all.pieces} pieces`);
  assert.is(all.records.length, 1002);
  assert.is(all.records[5].id, scaleKeyId(5), 'a changed key where it was first written');
  assert.ok(all.records[5].grants.includes('cobalt-cloud') && !all.records[5].critpt, 'as its last line says');
  assert.ok(all.records[10].revoked_at !== null);
  // Past the compaction: the header's end moves on, the changed keys carried over, changes after it again.
  for (let i = 0; i <= COMPACT_AFTER_LINES; i++) updateKeys(state, critptApproval(scaleKeyId(8 + 3 * (i % 4)), i % 8 < 4 ? false : true), 0);
  assert.ok(readKeysFile(keysPath(state))!.header!.replaces !== null, 'compacted');
  await sameAsWhole(state);
});

list('should give pieces of at most 256 keys, null without a file', async () => {
  const state = folder(1000);
  const pieces = (await keyPiecesInTurns(keysPath(state), {}, 60_000))!;
  const sizes: number[] = [];
  for await (const piece of pieces) sizes.push(piece.length);
  assert.ok(sizes.every((size) => size > 0 && size <= 256), sizes.join(' '));
  assert.is(sizes.reduce((a, b) => a + b, 0), 1000);
  assert.is(await keyPiecesInTurns(join(state, 'none.json')), null);
});

list('should refuse, before any piece, a file a whole read refuses', async () => {
  const broken = folder(300);
  appendFileSync(keysPath(broken), '{"id":"key_00000000000a","broken\n');
  const whole = await readKeysFileInTurns(keysPath(broken)).catch((error: Error) => error);
  const inPieces = await keyPiecesInTurns(keysPath(broken)).catch((error: Error) => error);
  assert.instance(whole, KeyStoreError);
  assert.instance(inPieces, KeyStoreError);
  assert.is((inPieces as Error).message, (whole as Error).message);

  // Two keys holding one hash: told by a whole read.
  const twin = folder(300);
  const first = readKeysFile(keysPath(twin))!.records[0];
  appendFileSync(keysPath(twin), `${recordLine({ ...first, id: 'key_0000000fffff' })}\n`);
  const twinWhole = await readKeysFileInTurns(keysPath(twin)).catch((error: Error) => error);
  const twinPieces = await keyPiecesInTurns(keysPath(twin)).catch((error: Error) => error);
  assert.instance(twinPieces, KeyStoreError);
  assert.is((twinPieces as Error).message, (twinWhole as Error).message);
});

list.run();
