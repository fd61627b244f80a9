/**
 * What an admin operation is (operations.ts holds the table of them) and the steps they share:
 * the key id of the path, the audit entry of a change, a change that is idempotent, usage read
 * from the server's counter.
 */
import type { Clock } from '../lib/clock.ts';
import type { KeyAdmin } from '../key-admin/stores.ts';
import { usageRows, withStatus, type ScopeUsage, type UsageKey } from '../key-admin/usage.ts';
import { KEY_ID_PATTERN, KeyNotFound, NAME_PATTERN, publicRecord, type KeyFilter } from '../keys/record.ts';
import type { KeyRecord } from '../state/key-record.ts';
import type { KeyChange } from '../keys/table.ts';
import type { QuotaCounter } from '../state/quota-counter.ts';
import type { QuotaLimits } from '../quota/scopes.ts';
import type { AuditEntry } from '../keys/audit.ts';
import { HttpError } from '../http/error.ts';
import type { BodySchema } from './input.ts';
import type { ServedProviders } from './providers.ts';

/** What the operations work on: the server's store, counter, limits and snapshot. */
export interface AdminContext {
  keys: KeyAdmin;
  quota: QuotaCounter;
  limits: QuotaLimits;
  /** The providers of the snapshot being served now. */
  served(): ServedProviders;
  clock: Clock;
  /** Where a change that could not be written to the audit trail is reported. */
  logError: (line: string) => void;
  /** Days the usage history keeps (--usage-retention-days): a range asked for beyond them is a 400. */
  usageRetentionDays: number;
}

/** Who asks, for the audit trail: the admin token (id and name) and the client's address. */
export interface Caller {
  tokenId: string;
  tokenName: string;
  from: string;
}

export interface AdminCall {
  /** The listener sends an answer as it is made (JsonPieces); the page, which reads answers, wants them whole. */
  pieces?: boolean;
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  caller: Caller;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

export interface Operation {
  /** operationId in the OpenAPI document; the page calls rows by it. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Under /admin/api; `{name}` is a path parameter. */
  path: string;
  summary: string;
  /** Query parameters, each a filter or a bound. */
  query?: Record<string, { description: string; schema: Record<string, unknown> }>;
  /** The JSON body's fields; absent: no body. */
  body?: BodySchema;
  /** The status of a successful answer, and what it holds (a component of openapi.ts); `csv`: also as text/csv. */
  answer: { status: number; schema: string; csv?: boolean };
  run(context: AdminContext, call: AdminCall): Promise<AdminAnswer>;
}

/** An org's or a user's name, as a query parameter or body field. */
export const NAME = { type: 'string' as const, pattern: NAME_PATTERN.source };

export const ok = (body: unknown): AdminAnswer => ({ status: 200, body });

/**
 * An answer's JSON text, a piece at a time, for the listener to send as it is made (chunked),
 * never held whole: a list of every key, 100,000 held and made in one string, took the server to
 * 248-251 MB resident (src/keys/file-list.ts has the figures).
 */
export class JsonPieces {
  constructor(
    readonly texts: AsyncIterable<string | Buffer>,
    /** Headers of an answer that is not JSON (a CSV export's Content-Type and Content-Disposition). */
    readonly headers: Record<string, string> = {},
  ) {}
}

/** A key id from the path: a malformed one is a 400, an unknown one a 404 (from the change or the lookup). */
export function keyIdParam(call: AdminCall): string {
  const id = call.params.id;
  if (!KEY_ID_PATTERN.test(id))
    throw new HttpError(400, 'Invalid key id', { details: { id, expected: 'key_ followed by 12 hexadecimal digits' } });
  return id;
}

export function findKey(records: readonly KeyRecord[], id: string): KeyRecord {
  const record = records.find((r) => r.id === id);
  if (!record) throw new KeyNotFound(`no key with id ${id}`);
  return record;
}

/**
 * Write one audit entry for a change made by `caller`. The change is made by then, so a trail
 * that cannot be written does not turn it into a failure (a new key's value would be lost with
 * the answer): the answer says so in `audit`, and the error log once a failure.
 */
export async function audit(
  context: AdminContext,
  caller: Caller,
  action: string,
  key: string,
  changes: Record<string, unknown>,
): Promise<{ audit?: string }> {
  const entry: AuditEntry = {
    at: new Date(context.clock.now()).toISOString(),
    actor: caller.tokenId,
    actor_name: caller.tokenName,
    action,
    key,
    changes,
    from: caller.from,
  };
  try {
    await context.keys.audit.append(entry);
    return {};
  } catch (error) {
    const reason =
      `${action} of ${key} by ${caller.tokenId} was made but not written to the audit trail: ` +
      (error as Error).message;
    context.logError(`admin: ${reason}`);
    return { audit: `not recorded: ${reason}` };
  }
}

/**
 * A change to one key unless it already is as asked (then nothing is written). The check runs
 * inside the change, on the store's own reading of the key, so two callers cannot both see
 * "not yet" and both write.
 */
function unlessAlready(
  id: string,
  already: (record: KeyRecord) => boolean,
  change: KeyChange<KeyRecord>,
): KeyChange<{ record: KeyRecord; changed: boolean }> {
  return (table) => {
    const record = table.byId(id);
    if (record !== undefined && already(record)) return { record, changed: false };
    return { record: change(table), changed: true };
  };
}

/** "Already as asked" for a change to an active key: a revoked key never is, so the change refuses it (409). */
export function activeAnd(already: (record: KeyRecord) => boolean): (record: KeyRecord) => boolean {
  return (record) => record.revoked_at === null && already(record);
}

/** Apply an idempotent change; audit it when it changed something. */
export async function idempotent(
  context: AdminContext,
  call: AdminCall,
  action: string,
  already: (record: KeyRecord) => boolean,
  change: KeyChange<KeyRecord>,
  changes: Record<string, unknown>,
): Promise<AdminAnswer> {
  const id = keyIdParam(call);
  const { record, changed } = await context.keys.apply(unlessAlready(id, already, change));
  const noted = changed ? await audit(context, call.caller, action, id, changes) : {};
  return ok({ record: publicRecord(record), changed, ...noted });
}

/** Every key in the store `filter` lets through, revoked ones included (the store may keep only those as it reads). */
export async function allKeys(context: AdminContext, filter: KeyFilter = {}): Promise<KeyRecord[]> {
  return (await context.keys.list(filter)) ?? [];
}

/** Usage rows of the active keys among `records`, with what the server's counter says now. */
export async function usage<K extends UsageKey>(
  context: AdminContext,
  records: readonly K[],
  keep: (row: ScopeUsage, records: Map<string, K>) => boolean,
): Promise<ScopeUsage[]> {
  const byId = new Map(records.map((r) => [r.id, r]));
  const rows = usageRows(records, context.limits).filter((row) => keep(row, byId));
  return withStatus(rows, (kind, scope, limit) => context.quota.status(kind, scope, limit), context.clock.now());
}
