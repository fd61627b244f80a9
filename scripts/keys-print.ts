/**
 * How the keys command shows things: one short line per key, a new key alone on stdout (notes
 * on stderr), and the usage table. Never a hash, never an existing key.
 */
import { keptValue, publicRecord, type IssuedKey, type PublicKeyRecord } from '../src/keys/record.ts';
import type { KeyRecord } from '../src/state/key-record.ts';
import type { ScopeUsage } from '../src/key-admin/usage.ts';
import type { KeyView } from '../src/key-admin/key-view.ts';
import type { CommandOutput as Output } from '../src/shared/command-output.ts';

/** Where the command writes: `out` is what a script captures (a key, JSON), `err` the notes. */
export type { CommandOutput as Output } from '../src/shared/command-output.ts';

export function describe(r: PublicKeyRecord): string {
  const quota = r.quota === null ? '' : `, quota ${r.quota}`;
  return `${r.id}: ${r.tier}, org ${r.org}${r.user === null ? '' : `, user ${r.user}`}, scope ${r.scope}${quota}`;
}

export function printIssued(io: Output, { key, record }: IssuedKey, json: boolean, verb: string): void {
  const shown = publicRecord(record);
  if (json) {
    const { id, ...rest } = shown;
    io.out(JSON.stringify({ id, key, ...rest }));
    return;
  }
  io.err(`${verb} ${describe(shown)}`);
  io.out(key);
  io.err('This key is shown only once; the store keeps only its hash.');
}

export function printRecord(io: Output, record: KeyRecord, json: boolean, text: string): void {
  io.out(json ? JSON.stringify(publicRecord(record)) : text);
}

/**
 * Columns padded to their widest cell; the last one is not padded. Loops, not spreads: a list of
 * 100,000 keys is 100,000 rows.
 */
export function columns(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map(() => 0);
  for (const row of rows) for (let c = 0; c < row.length; c++) widths[c] = Math.max(widths[c], row[c].length);
  const last = widths.length - 1;
  return rows.map((row) => row.map((cell, c) => (c === last ? cell : cell.padEnd(widths[c]))).join('  ')).join('\n');
}

const HEADINGS = ['id', 'name', 'value', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'status'];

/**
 * One line per key; grants as a count (a key may hold dozens; `list --json` names them). A
 * replaced value still working shows in the status, with the end of its overlap.
 */
export function keyTable(views: readonly KeyView[]): string {
  const rows = views.map((r) => [
    r.id,
    r.name ?? '-',
    keptValue(r) ?? '-',
    r.tier,
    r.org,
    r.user ?? '-',
    r.scope,
    r.quota === null ? '-' : String(r.quota),
    String(r.grants.length),
    r.critpt ? 'yes' : 'no',
    r.previous && r.state === 'active' ? `active, old value until ${r.previous.until}` : r.state,
    r.expires_at ?? '-',
    r.last_used_at ?? '-',
    r.created_at,
  ]);
  return columns([[...HEADINGS, 'expires', 'last_used', 'created'], ...rows]);
}

export function usageTable(rows: readonly ScopeUsage[]): string {
  const lines = rows.map((r) => [
    r.kind,
    r.scope,
    String(r.used),
    String(r.limit),
    String(r.remaining),
    r.resets_at ?? '-',
    r.keys.join(','),
  ]);
  return columns([['quota', 'scope', 'used', 'limit', 'remaining', 'resets', 'keys'], ...lines]);
}
