/**
 * keys.json as JSON lines (format 2): a change is one line appended, the server reads that line
 * alone, a compaction is followed without a whole read, format 1 is read and upgraded, and
 * anything that is not an append (a hand edit, a restore) is read whole.
 */
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKey, critptApproval, revokeKey } from '../../src/keys/changes.ts';
import { updateKeys } from '../../src/keys/file-append.ts';
import { loadKeys } from '../../src/keys/file-read.ts';
import { recordLine, type KeysHeader } from '../../src/keys/file-format.ts';
import type { IssuedKey } from '../../src/keys/record.ts';
import { FileKeys } from '../../src/keys/file-keys.ts';

const clock = { now: () => Date.UTC(2026, 10, 26, 9, 0, 0) };
const tempRoots: string[] = [];
process.on('exit', () => tempRoots.forEach((root) => rmSync(root, { recursive: true, force: true })));

/** A state folder with `n` keys, and a server's store on it that records how it reads the file. */
function fixture(n: number) {
  const root = mkdtempSync(join(tmpdir(), 'keys-file-'));
  tempRoots.push(root);
  const state = join(root, 'state');
  const file = join(state, 'keys.json');
  const issued: IssuedKey[] = [];
  for (let i = 0; i < n; i++) issued.push(createKey(state, { tier: i % 2 ? 'commercial' : 'pro', org: 'acme', user: `u${i}` }, clock));
  const reads: string[] = [];
  const store = () => FileKeys.open(state, { beforeRead: (_, what) => reads.push(what) });
  return { state, file, issued, reads, store };
}

function headerOf(file: string): KeysHeader {
  const text = readFileSync(file, 'utf8');
  return JSON.parse(text.slice(0, text.indexOf('\n')));
}

const lines = suite('keys.json format 2');

lines('should write a change as one line appended, which the server reads alone', () => {
  const f = fixture(20);
  const store = f.store();
  assert.equal(f.reads, ['whole']);
  const before = statSync(f.file);
  const revoked = revokeKey(f.state, f.issued[3].record.id, clock);
  const after = statSync(f.file);
  assert.is(after.ino, before.ino, 'the same file');
  assert.is(after.size - before.size, Buffer.byteLength(recordLine(revoked)), 'grown by the one line');
  assert.is(store.lookup(f.issued[3].key), undefined, 'the revoked key fails at once');
  assert.ok(store.lookup(f.issued[4].key));
  assert.equal(f.reads, ['whole', 'lines'], 'only the new line was read');
  const added = createKey(f.state, { tier: 'free', org: 'acme' }, clock);
  assert.is(store.lookup(added.key)?.id, added.record.id);
  assert.equal(f.reads, ['whole', 'lines', 'lines']);
  assert.is(loadKeys(f.state)?.length, 21, 'the store lists each key once');
  store.close();
});

lines('should follow a compaction without reading the file whole, whether it had read up to it or not', () => {
  const f = fixture(3);
  const commercial = f.issued[1].record.id;
  const current = f.store(); // checks after every change
  const behind = f.store(); // checks only at the end, so it meets the compaction many lines behind
  const first = headerOf(f.file);
  const ino = statSync(f.file).ino;
  let changes = 0;
  while (statSync(f.file).ino === ino) {
    updateKeys(f.state, critptApproval(commercial, changes++ % 2 === 0));
    assert.is(current.check(), null);
  }
  const header = headerOf(f.file);
  // The first creation wrote the file with its key as the first change: all three creations and the changes are appended lines.
  assert.is(3 + changes, 1001, 'compacted once the lines appended outnumber the records and 1,000');
  assert.equal(header.replaces?.file, first.file, 'the header names the file it replaces');
  assert.is(header.replaces?.ino, ino);
  assert.is(header.records, 3, 'one line a key');
  assert.is(readFileSync(f.file, 'utf8').trimEnd().split('\n').length, 4);
  revokeKey(f.state, f.issued[0].record.id, clock);
  for (const store of [current, behind]) {
    assert.is(store.lookup(f.issued[0].key), undefined);
    assert.is(store.lookup(f.issued[1].key)?.critpt, changes % 2 === 1);
    assert.ok(store.lookup(f.issued[2].key));
  }
  assert.equal(f.reads.filter((what) => what === 'whole').length, 2, 'each store read the file whole once, when it opened');
  current.close();
  behind.close();
});

lines('should read a format 1 file, and follow the first change that rewrites it as format 2', () => {
  const f = fixture(0);
  mkdirSync(f.state, { recursive: true, mode: 0o700 });
  const older = fixture(2);
  const records = loadKeys(older.state)!;
  writeFileSync(f.file, `${JSON.stringify({ format: 1, keys: records }, null, 2)}\n`, { mode: 0o600 });
  const store = f.store();
  assert.is(store.lookup(older.issued[0].key)?.id, records[0].id, 'format 1 is read');
  const { ino, size } = statSync(f.file);
  const added = createKey(f.state, { tier: 'pro', org: 'beta' }, clock);
  assert.equal(headerOf(f.file).replaces, { file: null, ino, size });
  assert.equal(loadKeys(f.state)?.map((r) => r.id), [records[0].id, records[1].id, added.record.id]);
  assert.is(store.lookup(added.key)?.org, 'beta');
  assert.ok(store.lookup(older.issued[1].key));
  assert.equal(f.reads, ['whole', 'lines'], 'the rewrite was followed: only the change after its keys was read');
  store.close();
});

lines('should leave a line not yet finished for later, and the next change should drop one a crash left', () => {
  const f = fixture(2);
  const store = f.store();
  const line = recordLine({ ...f.issued[0].record, revoked_at: '2026-11-26T10:00:00.000Z' });
  appendFileSync(f.file, line.slice(0, 40));
  assert.is(store.check(), null);
  assert.ok(store.lookup(f.issued[0].key), 'half a revocation is no revocation');
  const added = createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  assert.equal(readFileSync(f.file, 'utf8').split('\n').slice(1).map((l) => l.slice(0, 24)), [...[...f.issued, added].map((k) => `{"id":"${k.record.id}"`), ''], 'the unfinished line is gone');
  assert.ok(store.lookup(added.key));
  assert.ok(store.lookup(f.issued[0].key));
  assert.not.ok(f.reads.includes('whole', 1), 'read as lines throughout');
  store.close();
});

lines('should read the file whole when it was edited in place or replaced by another', () => {
  const f = fixture(3);
  const store = f.store();
  const text = readFileSync(f.file, 'utf8');
  writeFileSync(f.file, text.replace('"org":"acme"', '"org":"acmf"')); // the same size, the same file
  assert.is(store.lookup(f.issued[0].key)?.org, 'acmf');
  assert.equal(f.reads, ['whole', 'whole']);

  writeFileSync(f.file, text.replace('"org":"acme"', '"org":"ab"')); // shorter
  assert.is(store.lookup(f.issued[0].key)?.org, 'ab');
  writeFileSync(f.file, text.replace('"org":"acme"', '"org":"acme-renamed"')); // longer: not an append
  assert.is(store.lookup(f.issued[0].key)?.org, 'acme-renamed');
  assert.equal(f.reads, ['whole', 'whole', 'whole', 'whole']);

  const backup = `${f.file}.backup`;
  writeFileSync(backup, text, { mode: 0o600 });
  const later = createKey(f.state, { tier: 'pro', org: 'acme' }, clock);
  assert.ok(store.lookup(later.key));
  renameSync(backup, f.file); // a restore: the key made since is gone
  assert.is(store.lookup(later.key), undefined);
  assert.is(store.lookup(f.issued[0].key)?.org, 'acme');
  assert.is(f.reads.at(-1), 'whole');
  store.close();
});

lines('should read on, not whole, a file looked at while a line is being appended', () => {
  // A write moves the file's time before its size: a look between saw what an edit in place of
  // the same size looks like, and read the file whole (at 100,000 keys, a request held 724 ms).
  const f = fixture(2);
  const store = f.store();
  const template = recordLine({ ...f.issued[0].record, id: 'key_IDIDIDIDIDID', hash: 'H'.repeat(64) });
  // [0]: 1 appending, 3 done; [1]: lines appended; [2]: looks taken. The writer waits at each
  // thousandth line until the looks have caught up with it, so the test looks at the file some 40
  // times on a machine however busy (a CI run without the wait saw 9 looks at 40,000 lines).
  const state = new Int32Array(new SharedArrayBuffer(12));
  const writer = new Worker(
    `const { workerData: { file, template, state } } = require('node:worker_threads');
     const fs = require('node:fs'); const { randomBytes } = require('node:crypto');
     const fd = fs.openSync(file, 'a'); Atomics.store(state, 0, 1);
     for (let i = 0; i < 40000; i++) {
       for (let seen; i % 1000 === 0 && (seen = Atomics.load(state, 2)) < i / 1000; ) Atomics.wait(state, 2, seen, 100);
       const id = (0xa00000 + i).toString(16).padStart(12, '0');
       fs.writeSync(fd, template.replace('IDIDIDIDIDID', id).replace('${'H'.repeat(64)}', randomBytes(32).toString('hex')));
       Atomics.store(state, 1, i + 1);
     }
     fs.closeSync(fd); Atomics.store(state, 0, 3);`,
    { eval: true, workerData: { file: f.file, template, state } },
  );
  let looks = 0;
  while (Atomics.load(state, 0) !== 1);
  for (; Atomics.load(state, 0) !== 3; looks++) {
    assert.is(store.check()?.message ?? null, null);
    Atomics.add(state, 2, 1);
    Atomics.notify(state, 2);
  }
  void writer.terminate();
  assert.is(store.check(), null);
  assert.is(store.activeCount, 2 + 40000, 'every line appended read');
  assert.ok(looks > 20, `looked at while appended to: ${looks} looks`);
  assert.equal(f.reads.filter((what) => what === 'whole'), ['whole'], `read whole at start only (${looks} looks, ${Atomics.load(state, 1)} lines)`);
  store.close();
});

lines.run();
