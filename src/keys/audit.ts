/**
 * The audit trail: one entry for every change made to the keys, through the admin API or the
 * keys command, and to the admin tokens (the keys command only): who (the admin token's id and
 * name, or the keys command and the user running it), what (the action, the key's or token's
 * id, the settings changed), when, and from which address. Never a key's or a token's value
 * (nor its hash): an entry is built from ids and settings only.
 *
 * The state folder keeps it in `audit.log`, one JSON line an entry, appended and fdatasynced (a
 * crash keeps whole lines only; a partial last line is skipped when read). The file is opened
 * for each entry, so an operator may rotate it by renaming it: the next entry starts a new one.
 * Redis keeps it in the stream `bda:audit`, trimmed to about AUDIT_STREAM_MAX entries so a
 * shared Redis never grows without bound.
 */
import { closeSync, fchownSync, fdatasync, fdatasyncSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Eventually } from '../lib/eventually.ts';
import { keepForWrites } from './store-owner.ts';
import { KeyStoreError } from './record.ts';
import type { RedisClient } from '../redis/client.ts';
import { REDIS_PREFIX } from '../redis/keyspace.ts';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../shared/state-files.ts';

export const AUDIT_FILE = 'audit.log';
export const AUDIT_REDIS_KEY = `${REDIS_PREFIX}audit`;
export const AUDIT_STREAM_MAX = 1_000_000;
/** The most entries one read returns. */
export const AUDIT_READ_MAX = 1000;

export interface AuditEntry {
  at: string;
  /** The admin token's id, or `keys-command`. */
  actor: string;
  /** The token's name, or the system user who ran the keys command. */
  actor_name: string;
  /**
   * What was done: key.create, key.revoke, key.regenerate, key.grant, key.ungrant, key.critpt,
   * key.quota; admin-token.create, admin-token.revoke.
   */
  action: string;
  /** The key changed, or the admin token for admin-token.*: its id (key_..., adm_...), never its value. */
  key: string;
  /** The settings the change set (a new key's settings, the provider granted, the approval...). */
  changes: Record<string, unknown>;
  /** The client's address (the admin listener), or `local` (the keys command). */
  from: string;
}

export interface AuditLog {
  append(entry: AuditEntry): Eventually<void>;
  /** The latest entries, newest first; at most `limit` (at most AUDIT_READ_MAX). */
  latest(limit: number): Eventually<AuditEntry[]>;
}

/** fdatasync off the event loop, then close. */
function syncedAndClosed(fd: number, failed: (error: unknown) => Error): Promise<void> {
  return new Promise((resolve, reject) =>
    fdatasync(fd, (error) => {
      closeSync(fd);
      if (error) reject(failed(error));
      else resolve();
    }),
  );
}

/** Bytes read at a time from the end of the file: a read of the latest entries never holds the whole log. */
const TAIL_CHUNK = 64 * 1024;

/**
 * The state folder's trail. A server (`inTurns`) makes each entry durable off the event loop: an
 * fdatasync takes milliseconds on a disk that is busy, which would hold every request.
 */
export function fileAudit(stateDir: string, inTurns = false): AuditLog {
  const path = join(stateDir, AUDIT_FILE);
  const failed = (error: unknown) =>
    new KeyStoreError(`cannot write to ${path} (the audit trail): ${(error as Error).message}`);
  return {
    append(entry) {
      ensurePrivateDir(stateDir);
      let fd: number;
      try {
        fd = openSync(path, 'a', PRIVATE_FILE_MODE);
      } catch (error) {
        throw new KeyStoreError(`cannot open ${path} for the audit trail: ${(error as Error).message}`);
      }
      try {
        const owner = keepForWrites(stateDir).owner;
        // Run as root on another user's folder (the keys command), the log stays that user's.
        if (owner && fstatSync(fd).uid !== owner.uid) fchownSync(fd, owner.uid, owner.gid);
        const line = Buffer.from(`${JSON.stringify(entry)}\n`);
        for (let written = 0; written < line.length;) written += writeSync(fd, line, written, line.length - written);
        if (inTurns) return syncedAndClosed(fd, failed);
        fdatasyncSync(fd);
      } catch (error) {
        closeSync(fd);
        throw failed(error);
      }
      closeSync(fd);
    },
    latest(limit) {
      let fd: number;
      try {
        fd = openSync(path, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw new KeyStoreError(`cannot read ${path}: ${(error as Error).message}`);
      }
      try {
        return tailEntries(fd, fstatSync(fd).size, Math.min(limit, AUDIT_READ_MAX));
      } finally {
        closeSync(fd);
      }
    },
  };
}

/**
 * The last `limit` whole lines of a file, read backwards a chunk at a time, newest first; lines
 * that do not parse are skipped.
 */
function tailEntries(fd: number, size: number, limit: number): AuditEntry[] {
  const entries: AuditEntry[] = [];
  let pos = size;
  // The start of a line whose beginning lies in a chunk not yet read (with its newline).
  let pending = Buffer.alloc(0);
  // Bytes after the file's last newline are a line a crash cut short: never an entry.
  let endFound = false;
  while (pos > 0) {
    const start = Math.max(0, pos - TAIL_CHUNK);
    const chunk = Buffer.allocUnsafe(pos - start);
    readSync(fd, chunk, 0, chunk.length, start);
    pos = start;
    let bytes = pending.length > 0 ? Buffer.concat([chunk, pending]) : chunk;
    if (!endFound) {
      const last = bytes.lastIndexOf(10);
      if (last === -1) continue;
      bytes = bytes.subarray(0, last + 1);
      endFound = true;
    }
    // `bytes` ends with a newline; each line that a newline before it opens is whole.
    let lineEnd = bytes.length - 1;
    for (;;) {
      const nl = lineEnd === 0 ? -1 : bytes.lastIndexOf(10, lineEnd - 1);
      if (nl === -1) break;
      pushLine(entries, bytes.subarray(nl + 1, lineEnd));
      if (entries.length >= limit) return entries;
      lineEnd = nl;
    }
    pending = bytes.subarray(0, lineEnd + 1);
  }
  if (endFound && entries.length < limit) pushLine(entries, pending.subarray(0, pending.length - 1));
  return entries;
}

function pushLine(entries: AuditEntry[], line: Buffer): void {
  const text = line.toString('utf8').trim();
  if (!text) return;
  try {
    entries.push(JSON.parse(text) as AuditEntry);
  } catch {
    // A line a hand edit broke: skipped, the rest still read.
  }
}

export function redisAudit(client: RedisClient): AuditLog {
  return {
    async append(entry) {
      await client.sendReplicated([
        'XADD',
        AUDIT_REDIS_KEY,
        'MAXLEN',
        '~',
        AUDIT_STREAM_MAX,
        '*',
        'entry',
        JSON.stringify(entry),
      ]);
    },
    async latest(limit) {
      const reply = (await client.send([
        'XREVRANGE',
        AUDIT_REDIS_KEY,
        '+',
        '-',
        'COUNT',
        Math.min(limit, AUDIT_READ_MAX),
      ])) as [string, string[]][] | null;
      const entries: AuditEntry[] = [];
      for (const [, fields] of reply ?? []) {
        const at = fields.indexOf('entry');
        if (at === -1) continue;
        try {
          entries.push(JSON.parse(fields[at + 1]) as AuditEntry);
        } catch {
          // Written by something else under our prefix: skipped.
        }
      }
      return entries;
    },
  };
}
