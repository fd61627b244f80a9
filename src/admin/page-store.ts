/**
 * What the key-management page reads of the store for a view: a page of the table of keys with
 * their usage, or one key's own page, and the latest audit entries.
 */
import type { KeyView } from '../key-admin/key-view.ts';
import type { ScopeUsage } from '../key-admin/usage.ts';
import type { AuditEntry } from '../keys/audit.ts';
import type { HttpError } from '../http/error.ts';
import { httpErrorOf } from './input.ts';
import { operationById, runOperation, type AdminContext, type Caller } from './operations.ts';
import { usage as usageOf } from './operation.ts';
import { listQuery, type PageView } from './page-view.ts';
import type { Pagination } from '../key-admin/key-query.ts';
import { quotaScope } from '../quota/scopes.ts';
import { everyDay, type DayCount } from './page-chart-html.ts';

function shownUsage(context: AdminContext, keys: readonly KeyView[]): Promise<ScopeUsage[]> {
  return usageOf(context, keys, (row) => row.kind === 'data');
}

/** How many audit entries the page shows. */
const AUDIT_SHOWN = 20;
/** Entries looked through for a key's own: its latest changes are among the trail's latest, mostly. */
const AUDIT_SEARCHED = 1000;
/** Keys a page of the table shows. */
export const KEYS_PER_PAGE = 50;

/** The table of keys: one page of them, the data usage of each, the latest changes. */
export interface TableView {
  kind: 'table';
  keys: KeyView[];
  pagination: Pagination;
  usage: ScopeUsage[];
  audit: AuditEntry[];
}

/** One key's own page: the key, every quota scope it counts in, its data scope's last days, its own latest changes. */
export interface KeyPageView {
  kind: 'key';
  key: KeyView;
  usage: ScopeUsage[];
  history: { scope: string; days: DayCount[] };
  audit: AuditEntry[];
}

export type StoreView = TableView | KeyPageView;

/**
 * What a view shows, through the same operations as GET /admin/api/keys, /keys/{id} and /audit (a
 * key's page through the first's query by its id), so the page sees exactly what the API would
 * show the signed-in token.
 */
export async function readStore(context: AdminContext, caller: Caller, view: PageView): Promise<StoreView | HttpError> {
  const run = async <T>(id: string, query: Record<string, string>, params: Record<string, string> = {}) =>
    (
      await runOperation(operationById(id), context, {
        params,
        query: new URLSearchParams(query),
        body: undefined,
        caller,
      })
    ).body as T;
  try {
    if (view.key !== null) {
      const [detail, audit] = await Promise.all([
        run<{ record: KeyView; usage: ScopeUsage[] }>('getKey', {}, { id: view.key }),
        run<{ data: AuditEntry[] }>('listAudit', { limit: String(AUDIT_SEARCHED) }),
      ]);
      const own = audit.data.filter((entry) => entry.key === view.key).slice(0, AUDIT_SHOWN);
      // The last 30 days the history holds of the key's data scope (shared with the keys counting in it).
      const scope = quotaScope(detail.record);
      const history = await run<{ from: string; to: string; data: DayCount[] }>('usageHistory', {
        scope,
        kind: 'data',
      });
      const days = everyDay(history.from, history.to, history.data);
      return { kind: 'key', key: detail.record, usage: detail.usage, history: { scope, days }, audit: own };
    }
    const [listed, audit] = await Promise.all([
      run<{ data: KeyView[]; pagination: Pagination }>('listKeys', listQuery(view, KEYS_PER_PAGE)),
      run<{ data: AuditEntry[] }>('listAudit', { limit: String(AUDIT_SHOWN) }),
    ]);
    // The page's keys' own scopes only: what the table shows, whatever the other keys are.
    const usage = await shownUsage(context, listed.data);
    return { kind: 'table', keys: listed.data, pagination: listed.pagination, usage, audit: audit.data };
  } catch (error) {
    const failure = httpErrorOf(error);
    if (!failure) throw error;
    return failure;
  }
}
