/**
 * A server's changes to keys.json in turns (changeKeysInTurns) against the keys command's
 * (updateKeys) on twin folders: the same file after the same changes, the compaction included,
 * a key's line found wherever the chunks cut the file, an unfinished line cut off, a broken
 * line named by its number, and a server's store following without a whole read.
 */
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { scaleKeyId, writeScaleKeys } from '../../../../scripts/scale-state.ts';
import { createKey, creation, critptApproval, providerGrant, quotaChange, revocation } from '../../../../src/keys/changes.ts';
import { updateKeys } from '../../../../src/keys/file-append.ts';
import { changeKeysInTurns, keyInTurns } from '../../../../src/keys/file-change.ts';
import { recordLine, type KeysHeader } from '../../../../src/keys/file-format.ts';
import { lastLinesOf } from '../../../../src/keys/file-search.ts';
import { readKeysFile } from '../../../../src/keys/file-read.ts';
import { KeyConflict, KeyNotFound, KeyStoreError, keysPath } from '../../../../src/keys/record.ts';
import { FileKeys } from '../../../../src/keys/file-keys.ts';
import type { KeyChange } from '../../../../src/keys/table.ts';

const clock = { now: () => Date.UTC(2026, 10, 26, 9, 0, 0) };
const roots: string[] = [];
process.on('exit', () => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** Two folders holding the same `n` keys (the scale benches' keys: a tenth revoked). */
function twins(n: number): [string, string] {
  const root = mkdtempSync(join(tmpdir(), 'bda-file-change-'));
  roots.push(root);
  writeScaleKeys(join(root, 'a'), n);
  cpSync(join(root, 'a'), join(root, 'b'), { recursive: true });
  return [join(root, 'a'), join(root, 'b')];
}

/** A file's header and the bytes after it. */
function split(state: string): { header: KeysHeader; body: string } {
  const text = readFileSync(keysPath(state), 'utf8');
  const nl = text.indexOf('\n');
  return { header: JSON.parse(text.slice(0, nl)), body: text.slice(nl + 1) };
}

/** The same change through the keys command's way and the server's: both answers, or both failures. */
async function both<T>(a: string, b: string, change: () => KeyChange<T>): Promise<[T | Error, T | Error]> {
  let sync: T | Error;
  try {
    sync = updateKeys(a, change(), 0);
  } catch (error) {
    sync = error as Error;
  }
  const inTurns = await changeKeysInTurns(b, change()).catch((error: Error) => error);
  return [sync, inTurns];
}

const change = suite('changeKeysInTurns: the keys command\'s change, in turns');

change('should leave the file the keys command leaves, answer as it does, and refuse what it refuses', async () => {
  // 5,000 keys: 1.3 MB, more than one chunk.
  const [a, b] = twins(5000);
  const active = (i: number) => scaleKeyId(i % 10 === 9 ? i - 1 : i);
  const steps: (() => KeyChange<unknown>)[] = [
    () => revocation(active(0), clock), // the file's first record
    () => revocation(active(4998), clock), // near its end
    () => revocation(active(2600), clock),
    () => revocation(scaleKeyId(19), clock), // revoked when seeded: 409
    () => revocation('key_0000ffffffff', clock), // nobody's: 404
    () => providerGrant(active(2), 'anvil-hosting'), // commercial
    () => providerGrant(active(2), 'capstan-serve'), // the same key again: its last line is the appended one
    () => critptApproval(active(3000), true),
    () => quotaChange(active(4001), 1234), // pro: 409
    () => quotaChange(active(4004), 1234),
  ];
  for (const step of steps) {
    const [sync, inTurns] = await both(a, b, step);
    assert.equal(inTurns, sync);
  }
  const [sync, inTurns] = await both(a, b, () => revocation(scaleKeyId(19), clock));
  assert.instance(sync, KeyConflict);
  assert.instance(inTurns, KeyConflict);
  assert.instance((await both(a, b, () => revocation('key_0000ffffffff', clock)))[1], KeyNotFound);
  assert.is(readFileSync(keysPath(b), 'utf8'), readFileSync(keysPath(a), 'utf8'));
});

change('should issue a new key with an id no key holds, appended as one line', async () => {
  const [, b] = twins(2000);
  const before = statSync(keysPath(b)).size;
  const issued = await changeKeysInTurns(b, creation({ tier: 'pro', org: 'acme', user: 'ana' }, clock));
  const records = readKeysFile(keysPath(b))!.records;
  assert.is(records.length, 2001);
  assert.equal(records.at(-1), issued.record);
  assert.is(records.filter((r) => r.id === issued.record.id).length, 1);
  assert.is(statSync(keysPath(b)).size - before, Buffer.byteLength(recordLine(issued.record)));
});

change('should find each key\'s last line wherever a chunk boundary cuts the file', async () => {
  const [a] = twins(300);
  updateKeys(a, providerGrant(scaleKeyId(2), 'capstan-serve'), 0); // a key of two lines: the last one counts
  const text = readFileSync(keysPath(a));
  const from = text.indexOf(10) + 1;
  const expected = new Map<string, { at: number; text: string }>();
  for (let at = from; at < text.length; at = text.indexOf(10, at) + 1) {
    const line = text.toString('utf8', at, text.indexOf(10, at));
    expected.set(JSON.parse(line).id, { at, text: line });
  }
  const file = await open(keysPath(a), 'r');
  try {
    // Chunks of a prime number of bytes: their boundaries fall everywhere in the lines (some 270 bytes).
    for (const chunkBytes of [997, 4096, 1 << 20]) {
      const found = await lastLinesOf(file, keysPath(a), expected.keys(), from, text.length, chunkBytes);
      assert.equal(found, expected, `chunks of ${chunkBytes} bytes`);
    }
    assert.ok(expected.get(scaleKeyId(2))!.text.includes('capstan-serve'), 'the last of two lines');
    const lineStarts = [...expected.values()].map((line) => line.at);
    const cutStarts = lineStarts.filter((at) => Array.from({ length: 26 }, (_, i) => (text.length - at - i) % 997 === 0).some(Boolean));
    assert.ok(cutStarts.length > 0, 'some boundary cut a line\'s start, its id');
  } finally {
    await file.close();
  }
});

change('should cut off a line a crashed command left unfinished, as the keys command does', async () => {
  const [a, b] = twins(300);
  for (const state of [a, b]) appendFileSync(keysPath(state), '{"id":"key_000000000005","hash":"ab');
  await both(a, b, () => revocation(scaleKeyId(5), clock));
  assert.is(readFileSync(keysPath(b), 'utf8'), readFileSync(keysPath(a), 'utf8'));
  assert.ok(readKeysFile(keysPath(b))!.records[5]!.revoked_at !== null);
});

change('should refuse a line a hand edit broke, naming its line, as the keys command does', async () => {
  const [a, b] = twins(300);
  for (const state of [a, b]) appendFileSync(keysPath(state), '{"id":"key_000000000007","hash":"not a hash"}\n');
  const [sync, inTurns] = await both(a, b, () => revocation(scaleKeyId(7), clock));
  assert.instance(inTurns, KeyStoreError);
  assert.is((inTurns as Error).message.replace(b, a), (sync as Error).message);
  assert.match((inTurns as Error).message, 'line 302');
});

change('should compact as the keys command does, and a server\'s store should read on from the new file\'s end', async () => {
  const [a, b] = twins(200);
  const ana = createKey(b, { tier: 'commercial', org: 'acme', user: 'ana' }, clock);
  rmSync(a, { recursive: true });
  cpSync(b, a, { recursive: true });
  // 1,000 changes since the file was written, beside its 201 keys: the next one compacts it.
  let lines = '';
  for (let i = 0; i < 1000; i++) lines += recordLine({ ...readKeysFile(keysPath(a))!.records[i % 150]!, critpt: i % 2 === 0 });
  for (const state of [a, b]) appendFileSync(keysPath(state), lines);
  const reads: string[] = [];
  const store = FileKeys.open(b, { beforeRead: (_, what) => reads.push(what) });
  const before = { stat: statSync(keysPath(b)), header: split(b).header };
  try {
    const [sync, inTurns] = await both(a, b, () => providerGrant(ana.record.id, 'anvil-hosting'));
    assert.equal(inTurns, sync);
    const [compactedA, compactedB] = [split(a), split(b)];
    assert.is(compactedB.body, compactedA.body, 'each key\'s last line, in the order the keys were first written');
    assert.equal([compactedB.header.records, compactedB.header.end], [compactedA.header.records, compactedA.header.end]);
    assert.is(compactedB.header.records, 201);
    const appended = Buffer.byteLength(recordLine(inTurns as Exclude<typeof inTurns, Error>));
    assert.equal(compactedB.header.replaces, { file: before.header.file, ino: before.stat.ino, size: before.stat.size + appended }, 'the file it replaces, as it stood');
    assert.is(store.check(), null);
    assert.equal(store.lookup(ana.key)?.grants, ['anvil-hosting']);
    assert.equal(reads, ['whole', 'lines'], 'the change read as a line, the compaction not read at all');
  } finally {
    store.close();
  }
});

change('should find one key by its id as the whole read says it, null for none, undefined without a format 2 file', async () => {
  const [a] = twins(3000);
  updateKeys(a, providerGrant(scaleKeyId(2), 'capstan-serve'), 0);
  const whole = readKeysFile(keysPath(a))!.records;
  for (const i of [0, 2, 19, 1500, 2999]) assert.equal(await keyInTurns(keysPath(a), scaleKeyId(i)), whole[i], scaleKeyId(i));
  assert.is(await keyInTurns(keysPath(a), 'key_0000ffffffff'), null);
  assert.is(await keyInTurns(join(a, 'none.json'), scaleKeyId(0)), undefined);
  const old = join(a, '..', 'format1');
  writeScaleKeys(old, 10, 1);
  assert.is(await keyInTurns(keysPath(old), scaleKeyId(0)), undefined, 'format 1 is read whole');
});

change.run();
