/**
 * The rows of the usage history an answer keeps (RowFilter), as the admin API and the keys command
 * ask for them: an organisation's include its keys' own scopes (`key:ID`, a CritPt grading by a key
 * without a user), found among its keys, revoked ones too.
 */
import type { RowFilter } from '../quota/usage-day.ts';
import type { KeyAdmin } from './stores.ts';

export async function historyFilter(keys: KeyAdmin, kind: string | null, org: string | null): Promise<RowFilter> {
  if (org === null) return { kind, org };
  const records = (await keys.list({ org })) ?? [];
  return { kind, org, orgKeys: new Set(records.map((record) => record.id)) };
}
