/**
 * The keys command's commands on an open store (scripts/keys.ts parses the command line and opens
 * the store): each change through src/keys/changes.ts and into the audit trail, then printed; the
 * admin-token and audit commands are scripts/keys-admin.ts's.
 */
import { resolveOptions } from '../src/config.ts';
import { UsageError } from '../src/shared/flags.ts';
import type { FlagValues } from '../src/shared/flag-table.ts';
import type { KEYS_FLAGS } from './keys-flags.ts';
import type { QuotaLimits } from '../src/quota/scopes.ts';
import type { RecordedLimits } from '../src/quota/recorded-limits.ts';
import { whenReady, type Eventually } from '../src/lib/eventually.ts';
import { durationMs } from '../src/lib/duration.ts';
import type { KeyAdmin } from '../src/key-admin/stores.ts';
import { keyView } from '../src/key-admin/key-view.ts';
import {
  checkProviderSlug,
  creation,
  critptApproval,
  expiryChange,
  providerGrant,
  providerUngrant,
  quotaChange,
  regeneration,
  renaming,
  revocation,
} from '../src/keys/changes.ts';
import type { KeyChange } from '../src/keys/table.ts';
import { KEY_ID_PATTERN, KEY_PREFIX, creationSettings, type IssuedKey } from '../src/keys/record.ts';
import type { KeyRecord, KeyScope } from '../src/state/key-record.ts';
import { audited, performTokenOrAudit } from './keys-admin.ts';
import { printHistory } from './keys-history.ts';
import { checkServed } from '../src/key-admin/served-providers.ts';
import type { Tier } from '../src/shared/routes.ts';
import { describe, keyTable, printIssued, printRecord, usageTable, type Output } from './keys-print.ts';

export type KeysValues = FlagValues<typeof KEYS_FLAGS>;
type Values = KeysValues;

/** An id operand; a plain key given by mistake is refused without being echoed. */
function keyId(text: string): string {
  if (text.startsWith(KEY_PREFIX))
    throw new UsageError('that is a key, not a key id; find the id (key_...) with the list command');
  if (!KEY_ID_PATTERN.test(text))
    throw new UsageError(`not a key id: ${JSON.stringify(text)} (ids look like key_0123456789ab; see list)`);
  return text;
}

function quotaOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text) || Number(text) < 1)
    throw new UsageError(`--quota must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** An expiry operand or flag: a date-time, or `never` (none); absent is none. */
function expiryOf(text: string | undefined): string | null {
  return text === undefined || text === 'never' ? null : text;
}

/** `--overlap`: how long a regenerated key's old value keeps working (`24h`, `90m`, `7d`; default none). */
function overlapOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const ms = durationMs(text);
  if (ms === null)
    throw new UsageError(`--overlap must be a duration like 24h, 90m or 7d, got ${JSON.stringify(text)}`);
  return ms;
}

function onOff(text: string): boolean {
  if (text !== 'on' && text !== 'off') throw new UsageError(`critpt takes on or off, got ${JSON.stringify(text)}`);
  return text === 'on';
}

/** A grant must name a provider of the served snapshot (see checkServed); --force makes it a warning. */
function checkGrants(io: Output, slugs: readonly string[], values: Values): void {
  const warn = (text: string) => io.err(`keys: warning: ${text}`);
  checkServed(slugs.map(checkProviderSlug), { snapshotDir: values.snapshot, force: values.force }, warn);
}

function create(io: Output, values: Values): KeyChange<IssuedKey> {
  if (values.tier === undefined) throw new UsageError('create needs --tier free|pro|commercial');
  if (values.org === undefined) throw new UsageError('create needs --org ORG');
  const change = creation({
    tier: values.tier as Tier,
    org: values.org,
    user: values.user ?? null,
    scope: values.scope as KeyScope | undefined,
    quota: quotaOf(values.quota),
    grants: values.grant,
    critpt: values.critpt,
    name: values.name ?? null,
    expires_at: expiryOf(values.expires),
  });
  // creation() has refused grants on a tier that cannot use them before the snapshot is read.
  checkGrants(io, values.grant, values);
  return change;
}

/**
 * The limits `usage` counts against, said on stderr: the server's record, else the environment as a
 * server would read it.
 */
function usageLimits(recorded: RecordedLimits | null, where: string, io: Output): QuotaLimits {
  const describe = ({ free, pro, commercialDefault, critpt }: QuotaLimits) =>
    `free ${free}, pro ${pro}, commercial ${commercialDefault} (keys without a quota of their own), CritPt ${critpt}`;
  if (recorded) {
    io.err(`limits as the server recorded them in ${where} at ${recorded.recorded_at}: ${describe(recorded.limits)}`);
    return recorded.limits;
  }
  const limits = environmentLimits();
  io.err(
    `no server has recorded its limits in ${where} yet; ` +
      `counting against the environment's (QUOTA_*) or the defaults: ${describe(limits)}`,
  );
  return limits;
}

/** The quota limits as the server resolves them from the environment. */
function environmentLimits(): QuotaLimits {
  try {
    const options = resolveOptions([], process.env);
    if (typeof options === 'object') return options.limits;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(
      error.message.replace(/^--(\S+)/, (_, flag: string) => flag.toUpperCase().replaceAll('-', '_')),
    );
  }
  throw new Error('unreachable: no --help or --version in an empty argument list');
}

/** A command on an open store: at once on the file store, later on Redis. */
/** Apply a change to the store, then write its audit entry (a failed write only warns: the change is made). */
function applyAudited<T>(
  admin: KeyAdmin,
  io: Output,
  change: KeyChange<T>,
  action: string,
  recordOf: (done: T) => { readonly id: string },
  changes: (done: T) => Record<string, unknown>,
): Eventually<T> {
  return whenReady(admin.apply(change), audited(admin, io, action, recordOf, changes));
}

/** A change to one key's record, audited, then printed with its line. */
function changeRecord(
  admin: KeyAdmin,
  io: Output,
  json: boolean,
  change: KeyChange<KeyRecord>,
  action: string,
  changes: (record: KeyRecord) => Record<string, unknown>,
  line: (record: KeyRecord) => string,
): Eventually<void> {
  const recorded = applyAudited(admin, io, change, action, (record) => record, changes);
  return whenReady(recorded, (record) => printRecord(io, record, json, line(record)));
}

const NO_CHANGES = () => ({});

export function perform(
  admin: KeyAdmin,
  command: string,
  operands: string[],
  values: Values,
  io: Output,
): Eventually<void> {
  const { json } = values;
  const change = (
    keyChange: KeyChange<KeyRecord>,
    action: string,
    changes: (record: KeyRecord) => Record<string, unknown>,
    line: (record: KeyRecord) => string,
  ) => changeRecord(admin, io, json, keyChange, action, changes, line);
  const recordOfIssued = (issued: IssuedKey) => issued.record;
  switch (command) {
    case 'create': {
      const settings = ({ record }: IssuedKey) => creationSettings(record);
      const issued = applyAudited(admin, io, create(io, values), 'key.create', recordOfIssued, settings);
      return whenReady(issued, (done) => printIssued(io, done, json, 'created'));
    }
    case 'list':
      return whenReady(admin.list(), (found) =>
        whenReady(admin.lastUsed(null), (lastUsed) => {
          const now = Date.now();
          const views = (found ?? []).map((record) => keyView(record, now, lastUsed));
          if (json) io.out(JSON.stringify(views, null, 2));
          else if (views.length === 0) io.err(`no keys in ${admin.where}`);
          else io.out(keyTable(views));
        }),
      );
    case 'revoke':
      return change(
        revocation(keyId(operands[0])),
        'key.revoke',
        NO_CHANGES,
        (record) => `revoked ${describe(record)}`,
      );
    case 'regenerate': {
      const regenerated = regeneration(keyId(operands[0]), overlapOf(values.overlap));
      const overlap = ({ record }: IssuedKey) => (record.previous ? { overlap_until: record.previous.until } : {});
      const issued = applyAudited(admin, io, regenerated, 'key.regenerate', recordOfIssued, overlap);
      return whenReady(issued, (done) => {
        printIssued(io, done, json, 'regenerated');
        if (!json && done.record.previous) io.err(`The old value keeps working until ${done.record.previous.until}.`);
      });
    }
    case 'rename': {
      const name = operands[1] === '' || operands[1] === 'none' ? null : operands[1];
      return change(
        renaming(keyId(operands[0]), name),
        'key.name',
        () => ({ name }),
        (record) => `${record.id}: ${record.name === null ? 'no label' : `labelled ${JSON.stringify(record.name)}`}`,
      );
    }
    case 'expire': {
      const expiry = expiryChange(keyId(operands[0]), expiryOf(operands[1]));
      return change(
        expiry,
        'key.expiry',
        (record) => ({ expires_at: record.expires_at }),
        (record) => `${record.id}: ${record.expires_at === null ? 'never expires' : `expires at ${record.expires_at}`}`,
      );
    }
    case 'grant': {
      const id = keyId(operands[0]);
      const provider = operands[1];
      checkGrants(io, [provider], values);
      return change(
        providerGrant(id, provider),
        'key.grant',
        () => ({ provider }),
        (record) => {
          const grants = `${record.grants.length} grant${record.grants.length === 1 ? '' : 's'}`;
          return `${record.id} now holds ${grants}, including ${provider}`;
        },
      );
    }
    case 'ungrant': {
      const provider = operands[1];
      const ungrant = providerUngrant(keyId(operands[0]), checkProviderSlug(provider));
      return change(
        ungrant,
        'key.ungrant',
        () => ({ provider }),
        (record) => `${record.id} no longer holds a grant for ${provider} (${record.grants.length} left)`,
      );
    }
    case 'critpt': {
      const approval = critptApproval(keyId(operands[0]), onOff(operands[1]));
      return change(
        approval,
        'key.critpt',
        (record) => ({ critpt: record.critpt }),
        (record) => `${record.id}: CritPt grading ${record.critpt ? 'approved' : 'withdrawn'}`,
      );
    }
    case 'quota': {
      const quota = operands[1] === 'default' ? null : quotaOf(operands[1]);
      return change(
        quotaChange(keyId(operands[0]), quota),
        'key.quota',
        () => ({ quota }),
        (record) => {
          const limit = record.quota === null ? "the server's commercial default" : `${record.quota} requests per 24 h`;
          return `${record.id}: quota ${limit}`;
        },
      );
    }
    case 'usage':
      if (values.history) return printHistory(admin, values, Date.now(), io);
      if (values.from !== undefined || values.to !== undefined)
        throw new UsageError('--from and --to are options of usage --history');
      return whenReady(admin.recordedLimits(), (recorded) =>
        whenReady(admin.usage(usageLimits(recorded, admin.where, io), Date.now()), (rows) => {
          if (json) io.out(JSON.stringify(rows, null, 2));
          else if (rows.length === 0) io.err(`no active keys in ${admin.where}`);
          else io.out(usageTable(rows));
        }),
      );
    default:
      return performTokenOrAudit(admin, command, operands, values, io);
  }
}
