/**
 * `keys migrate`: a state folder's store carried into Redis, all that a server on Redis reads of
 * it: the keys, the open quota windows, the admin tokens (so the folder's tokens sign in to the
 * admin listeners on Redis) and the audit trail (so the record of who changed what moves with
 * what was changed). Safe to run again: what Redis already holds the same is counted, not added
 * twice. What Redis holds otherwise is left as it is and named (a key or token id with other
 * contents; audit entries older than Redis's own trail), and the command fails (exit status 1)
 * after carrying the rest, so the operator decides.
 */
import { existsSync } from 'node:fs';
import type { Clock } from '../lib/clock.ts';
import type { RedisClient } from '../redis/client.ts';
import { readWindows } from '../quota/replay.ts';
import type { RedisQuota } from '../quota/redis-quota.ts';
import { counterParts } from '../quota/counter-ids.ts';
import { fileTokenStore, importTokens } from '../keys/admin-tokens.ts';
import { AUDIT_FILE } from '../keys/audit.ts';
import { carryAudit } from '../keys/audit-carry.ts';
import { loadKeys } from '../keys/file-read.ts';
import { KeyStoreError } from '../keys/record.ts';
import type { RedisRecords } from '../keys/redis-records.ts';

export interface MigrationTarget {
  client: RedisClient;
  keys: RedisRecords;
  quota: RedisQuota;
  clock: Clock;
  /** The Redis, for messages. */
  where: string;
}

/**
 * Carry `stateDir` into Redis; the summary line for the operator, or KeyStoreError naming what was
 * left as Redis had it.
 */
export async function migrateFolder(
  stateDir: string,
  { client, keys, quota, clock, where }: MigrationTarget,
): Promise<string> {
  if (!existsSync(stateDir)) throw new KeyStoreError(`no state folder at ${stateDir}`);
  const records = loadKeys(stateDir) ?? [];
  const windows = Object.entries(readWindows(stateDir, clock.now(), () => {}));
  const tokenRecords = await fileTokenStore(stateDir).list();
  const imported = await keys.import(records);
  await keys.mark();
  for (const [counter, window] of windows) await quota.merge(...counterParts(counter), window);
  const tokens = await importTokens(client, tokenRecords);
  const audit = await carryAudit(client, stateDir);

  const summary =
    `migrated ${stateDir} into ${where}: ${imported.added} keys added, ${imported.present} already there, ` +
    `${windows.length} open quota windows, ` +
    `${tokens.added} admin tokens added, ${tokens.present} already there, ${audit.added} audit entries added, ` +
    `${audit.present} already there` +
    (audit.skipped ? ` (${audit.skipped} lines of ${AUDIT_FILE} that are not audit entries skipped)` : '');
  const left: string[] = [];
  if (imported.conflicts.length)
    left.push(`keys not changed, since Redis holds other records under these ids: ${imported.conflicts.join(', ')}`);
  if (tokens.conflicts.length)
    left.push(
      `admin tokens not changed, since Redis holds other tokens under these ids: ${tokens.conflicts.join(', ')}`,
    );
  if (audit.older) {
    left.push(
      `${audit.older} audit entries not carried: Redis's trail already holds later changes (its newest made at ` +
        `${audit.redisNewest}) ` +
        `and lists entries in the order they were added; keep ${stateDir}/${AUDIT_FILE}: it is the trail of the ` +
        `changes made before`,
    );
  }
  if (left.length) throw new KeyStoreError(`${summary}; ${left.join('; ')}`);
  return summary;
}
