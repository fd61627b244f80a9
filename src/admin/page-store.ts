/**
 * What the key-management page reads of the store for a view: its keys, their usage and the latest
 * audit entries, through the same operations as GET /admin/api/keys, /usage and /audit (so the
 * page sees exactly what the API would show the signed-in token).
 */
import type { KeyView } from '../key-admin/key-view.ts';
import type { KeyAdmin } from '../key-admin/stores.ts';
import type { ScopeUsage } from '../key-admin/usage.ts';
import type { AuditEntry } from '../keys/audit.ts';
import type { HttpError } from '../http/error.ts';
import { httpErrorOf } from './input.ts';
import { operationById, runOperation, type AdminContext, type Caller } from './operations.ts';
import type { PageView } from './page-view.ts';

/** How many audit entries the page shows. */
const AUDIT_SHOWN = 20;

interface StoreView {
  keys: KeyView[];
  usage: ScopeUsage[];
  audit: AuditEntry[];
}

/**
 * The store as one view reads it: every key read once, for the keys and the usage operations
 * both (they ask for the same org's keys). With 100,000 keys in the state folder (written by
 * `scripts/bench/keys-scale.ts`) a read took 780 ms, and a view 1.75 to 1.92 s with a read
 * each, 0.98 to 1.20 s with one.
 */
function listedOnce(keys: KeyAdmin): KeyAdmin {
  const listed = new Map<string, ReturnType<KeyAdmin['list']>>();
  return {
    ...keys,
    list: (filter = {}) => {
      const key = JSON.stringify(filter);
      if (!listed.has(key)) listed.set(key, keys.list(filter));
      return listed.get(key)!;
    },
  };
}

/**
 * The keys, usage and audit entries of a view, through the same operations as GET /admin/api/keys,
 * /usage and /audit.
 */
export async function readStore(context: AdminContext, caller: Caller, view: PageView): Promise<StoreView | HttpError> {
  const viewContext: AdminContext = { ...context, keys: listedOnce(context.keys) };
  const run = async <T>(id: string, query: Record<string, string>): Promise<T> => {
    const answer = await runOperation(operationById(id), viewContext, {
      params: {},
      query: new URLSearchParams(query),
      body: undefined,
      caller,
    });
    return (answer.body as { data: T }).data;
  };
  const org: Record<string, string> = view.org === null ? {} : { org: view.org };
  try {
    const [keys, usage, audit] = await Promise.all([
      run<KeyView[]>('listKeys', view.showRevoked ? org : { ...org, revoked: 'false' }),
      run<ScopeUsage[]>('listUsage', org),
      run<AuditEntry[]>('listAudit', { limit: String(AUDIT_SHOWN) }),
    ]);
    return { keys, usage, audit };
  } catch (error) {
    const failure = httpErrorOf(error);
    if (!failure) throw error;
    return failure;
  }
}
