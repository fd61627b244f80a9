/**
 * `npm run -s keys -- <command> [--state DIR] [--store file|redis://...] [--json]` (or
 * `node dist/keys.mjs <command> ...`): manage API keys. This only parses arguments and prints;
 * src/keys/ does the work. A new key is printed once, alone on stdout (notes go to stderr, so
 * `KEY=$(npm run -s keys -- create ...)` captures just the key). No command prints a stored hash
 * or an existing key.
 *
 * Exit status: 0 done, 1 the store refused (unreadable file, unknown or revoked id, a grant the
 * key cannot use or a provider the snapshot does not serve, a store whose owner this user could
 * not keep, a migrate that left what Redis holds otherwise as it was), 2 bad usage or a bad value.
 * `run(argv, io)` is the whole command as a function (the tests call it in-process); the last
 * lines run it when this file is the program. With the file store it runs and returns at once;
 * with Redis it returns a promise of the status.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveOptions, storeOf } from '../src/config.ts';
import { readFlags } from '../src/shared/flag-table.ts';
import { CONSOLE_OUTPUT } from '../src/shared/command-output.ts';
import { UsageError } from '../src/shared/flags.ts';
import { KEYS_FLAGS, type KeysFlag } from './keys-flags.ts';
import type { QuotaLimits } from '../src/quota/scopes.ts';
import type { RecordedLimits } from '../src/quota/recorded-limits.ts';
import { whenReady, type Eventually } from '../src/lib/eventually.ts';
import { fileAdmin, redisAdmin, type KeyAdmin } from '../src/key-admin/stores.ts';
import {
  checkProviderSlug,
  creation,
  critptApproval,
  providerGrant,
  providerUngrant,
  quotaChange,
  regeneration,
  revocation,
} from '../src/keys/changes.ts';
import type { KeyChange } from '../src/keys/table.ts';
import {
  KEY_ID_PATTERN,
  KEY_PREFIX,
  KeyInputError,
  KeyStoreError,
  publicRecord,
  type IssuedKey,
} from '../src/keys/record.ts';
import type { KeyRecord, KeyScope } from '../src/state/key-record.ts';
import { audited, performTokenOrAudit } from './keys-admin.ts';
import { QuotaStateError } from '../src/quota/replay.ts';
import { checkServed } from '../src/key-admin/served-providers.ts';
import type { Tier } from '../src/shared/routes.ts';
import { describe, keyTable, printIssued, printRecord, usageTable, type Output } from './keys-print.ts';
import { USAGE } from './keys-help.ts';
import { FORMATS } from '../src/formats.ts';
import { versionLine } from '../src/shared/version.ts';

export type { Output } from './keys-print.ts';

type OptionName = KeysFlag;
/** The flags every command takes. */
const COMMON: readonly OptionName[] = [
  'state',
  'store',
  'store-ca',
  'store-cert',
  'store-key',
  'store-replicas',
  'store-replicas-timeout',
  'json',
];

const COMMANDS: Record<string, { operands: readonly string[]; options: readonly OptionName[] }> = {
  create: { operands: [], options: ['tier', 'org', 'user', 'scope', 'quota', 'grant', 'critpt', 'force', 'snapshot'] },
  list: { operands: [], options: [] },
  revoke: { operands: ['ID'], options: [] },
  regenerate: { operands: ['ID'], options: [] },
  grant: { operands: ['ID', 'PROVIDER_SLUG'], options: ['force', 'snapshot'] },
  ungrant: { operands: ['ID', 'PROVIDER_SLUG'], options: [] },
  critpt: { operands: ['ID', 'on|off'], options: [] },
  quota: { operands: ['ID', 'N|default'], options: [] },
  usage: { operands: [], options: [] },
  migrate: { operands: [], options: [] },
  'admin-token create': { operands: [], options: ['name'] },
  'admin-token list': { operands: [], options: [] },
  'admin-token revoke': { operands: ['ID'], options: [] },
  audit: { operands: [], options: ['limit'] },
};

/** The commands, a group's (`admin-token create`, `admin-token list`...) as one entry. */
function commandNames(): string[] {
  return [...new Set(Object.keys(COMMANDS).map((name) => name.replace(/ .*/, ' create|list|revoke')))];
}

function parse(argv: string[]) {
  const { values, given, positionals, help, version } = readFlags(KEYS_FLAGS, argv, process.env, { positionals: true });
  if (help || version) return { command: help ? 'help' : 'version', operands: [], values };
  // `admin-token ACTION ...` is one command of the table, named with its action.
  const [first, ...rest] = positionals;
  const [command, ...operands] =
    first === 'admin-token'
      ? [`${first} ${rest[0] ?? '(no action: create, list or revoke)'}`, ...rest.slice(1)]
      : [first, ...rest];
  if (command === undefined) throw new UsageError('no command given');
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(command)}; commands: ${commandNames().join(', ')}`);
  if (operands.length !== spec.operands.length) {
    const expected = spec.operands.length === 0 ? 'no arguments' : spec.operands.join(' ');
    throw new UsageError(
      `${command} takes ${expected}, got ${operands.length} argument${operands.length === 1 ? '' : 's'}`,
    );
  }
  for (const option of given) {
    if (!COMMON.includes(option) && !spec.options.includes(option))
      throw new UsageError(`--${option} is not an option of ${command}`);
  }
  return { command, operands, values };
}

type Values = ReturnType<typeof parse>['values'];

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

function perform(admin: KeyAdmin, command: string, operands: string[], values: Values, io: Output): Eventually<void> {
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
      const settings = ({ record }: IssuedKey) => settingsOf(record);
      const issued = applyAudited(admin, io, create(io, values), 'key.create', recordOfIssued, settings);
      return whenReady(issued, (done) => printIssued(io, done, json, 'created'));
    }
    case 'list':
      return whenReady(admin.list(), (found) => {
        const records = found ?? [];
        if (json) io.out(JSON.stringify(records.map(publicRecord), null, 2));
        else if (records.length === 0) io.err(`no keys in ${admin.where}`);
        // the table shows no hash: no public copy of each record needed
        else io.out(keyTable(records));
      });
    case 'revoke':
      return change(
        revocation(keyId(operands[0])),
        'key.revoke',
        NO_CHANGES,
        (record) => `revoked ${describe(record)}`,
      );
    case 'regenerate': {
      const regenerated = regeneration(keyId(operands[0]));
      const issued = applyAudited(admin, io, regenerated, 'key.regenerate', recordOfIssued, NO_CHANGES);
      return whenReady(issued, (done) => printIssued(io, done, json, 'regenerated'));
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

/** A new key's settings, for its audit entry: the public record less what every record has. */
function settingsOf(record: KeyRecord): Record<string, unknown> {
  const { id, created_at, revoked_at, ...settings } = publicRecord(record);
  return settings;
}

function execute(argv: string[], io: Output): Eventually<void> {
  const { command, operands, values } = parse(argv);
  if (command === 'help') return io.out(USAGE);
  if (command === 'version') return io.out(versionLine(FORMATS));
  // The server's rows, read from the environment as the server reads it: the same files, the same refusals.
  const { store, replicas } = storeOf(values);
  if (store === 'file') {
    if (command === 'migrate')
      throw new UsageError('migrate copies a state folder into Redis: give --store redis://HOST:PORT[/DB]');
    return perform(fileAdmin(values.state), command, operands, values, io);
  }
  return redisAdmin(store, undefined, replicas).then(async (admin) => {
    try {
      if (command === 'migrate') io.err(await admin.migrate(values.state));
      else await perform(admin, command, operands, values, io);
    } finally {
      admin.close();
    }
  });
}

/** The exit status of a command that failed; anything unexpected is re-thrown. */
function failed(error: unknown, io: Output): number {
  if (error instanceof UsageError || error instanceof KeyInputError) {
    io.err(
      `keys: ${error.message}\n` +
        '(npm run -s keys -- --help, or node dist/keys.mjs --help, lists the commands and options)',
    );
    return 2;
  }
  if (error instanceof KeyStoreError || error instanceof QuotaStateError) {
    io.err(`keys: ${error.message}`);
    return 1;
  }
  throw error;
}

/** Run one keys command; the exit status (see the top of this file), later when the store is Redis. */
export function run(argv: string[], io: Output = CONSOLE_OUTPUT): Eventually<number> {
  let done: Eventually<void>;
  try {
    done = execute(argv, io);
  } catch (error) {
    return failed(error, io);
  }
  return done instanceof Promise
    ? done.then(
        () => 0,
        (error: unknown) => failed(error, io),
      )
    : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = await run(process.argv.slice(2));
