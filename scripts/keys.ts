/**
 * `npm run -s keys -- <command> [--state DIR] [--store file|redis://...] [--json]`: manage API keys. This only parses
 * arguments and prints; src/keys.ts does the work. A new key is printed once, alone on stdout
 * (notes go to stderr, so `KEY=$(npm run -s keys -- create ...)` captures just the key). No
 * command prints a stored hash or an existing key.
 *
 * Exit status: 0 done, 1 the store refused (unreadable file, unknown or revoked id),
 * 2 bad usage or a bad value. `run(argv, io)` is the whole command as a function (the tests call
 * it in-process); the last lines run it when this file is the program. With the file store it
 * runs and returns at once; with Redis it returns a promise of the status.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, storeOption } from '../src/config.ts';
import { then, type Eventually } from '../src/eventually.ts';
import { fileAdmin, redisAdmin, type KeyAdmin } from '../src/key-admin.ts';
import {
  checkProviderSlug,
  creation,
  KEY_ID_PATTERN,
  KEY_PREFIX,
  KeyInputError,
  KeyStoreError,
  providerGrant,
  publicRecord,
  regeneration,
  revocation,
  type IssuedKey,
  type KeyChange,
  type KeyRecord,
  type KeyScope,
  type PublicKeyRecord,
} from '../src/keys.ts';
import type { Tier } from '../src/shared/routes.ts';

const USAGE = `usage: npm run -s keys -- <command> [--state DIR] [--store file|redis://HOST:PORT[/DB]] [--json]

commands:
  create --tier free|pro|commercial --org ORG [--user USER] [--scope user|org]
         [--quota N] [--grant PROVIDER_SLUG]... [--critpt]
                          issue a key and print it once (scope defaults to user when
                          --user is given, else org; --quota is for commercial keys)
  list                    show every key's record (never the key itself)
  revoke ID               stop a key at once
  regenerate ID           replace a key's value, keeping its id, quota scope and grants;
                          prints the new key once
  grant ID PROVIDER_SLUG  let a key read one provider's measurements
  migrate --state DIR --store redis://...
                          copy the folder's keys and open quota windows into Redis
                          (again is harmless: present keys and counts are kept)

options:
  --state DIR   private state folder (default: $STATE_DIR, else state)
  --store S     file (the state folder) or the Redis the servers share
                (default: $STORE, else file)
  --json        print JSON instead of text`;

const OPTIONS = {
  // The same folder the server uses when it is started with STATE_DIR.
  state: { type: 'string', default: process.env.STATE_DIR ?? 'state' },
  store: { type: 'string', default: process.env.STORE ?? 'file' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  tier: { type: 'string' },
  org: { type: 'string' },
  user: { type: 'string' },
  scope: { type: 'string' },
  quota: { type: 'string' },
  grant: { type: 'string', multiple: true },
  critpt: { type: 'boolean' },
} as const;

type OptionName = keyof typeof OPTIONS;
const COMMON: readonly OptionName[] = ['state', 'store', 'json', 'help'];

const COMMANDS: Record<string, { operands: readonly string[]; options: readonly OptionName[] }> = {
  create: { operands: [], options: ['tier', 'org', 'user', 'scope', 'quota', 'grant', 'critpt'] },
  list: { operands: [], options: [] },
  revoke: { operands: ['ID'], options: [] },
  regenerate: { operands: ['ID'], options: [] },
  grant: { operands: ['ID', 'PROVIDER_SLUG'], options: [] },
  migrate: { operands: [], options: [] },
};

class UsageError extends Error {}

/** Where the command writes: `out` is what a script captures (a key, JSON), `err` the notes. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
}

const CONSOLE: Output = { out: (text) => console.log(text), err: (text) => console.error(text) };

function parse(argv: string[]) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return { command: 'help', operands: [], values };
  const [command, ...operands] = positionals;
  if (command === undefined) throw new UsageError('no command given');
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`unknown command ${JSON.stringify(command)}; commands: ${Object.keys(COMMANDS).join(', ')}`);
  if (operands.length !== spec.operands.length) {
    const expected = spec.operands.length === 0 ? 'no arguments' : spec.operands.join(' ');
    throw new UsageError(`${command} takes ${expected}, got ${operands.length} argument${operands.length === 1 ? '' : 's'}`);
  }
  for (const option of Object.keys(values) as OptionName[]) {
    if (!COMMON.includes(option) && !spec.options.includes(option)) throw new UsageError(`--${option} is not an option of ${command}`);
  }
  return { command, operands, values };
}

type Values = ReturnType<typeof parse>['values'];

/** An id operand; a plain key given by mistake is refused without being echoed. */
function keyId(text: string): string {
  if (text.startsWith(KEY_PREFIX)) throw new UsageError('that is a key, not a key id; find the id (key_...) with the list command');
  if (!KEY_ID_PATTERN.test(text)) throw new UsageError(`not a key id: ${JSON.stringify(text)} (ids look like key_0123456789ab; see list)`);
  return text;
}

function quotaOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--quota must be a positive integer, got ${JSON.stringify(text)}`);
  return Number(text);
}

function create(values: Values): KeyChange<IssuedKey> {
  if (values.tier === undefined) throw new UsageError('create needs --tier free|pro|commercial');
  if (values.org === undefined) throw new UsageError('create needs --org ORG');
  return creation({
    tier: values.tier as Tier,
    org: values.org,
    user: values.user ?? null,
    scope: values.scope as KeyScope | undefined,
    quota: quotaOf(values.quota),
    grants: values.grant ?? [],
    critpt: values.critpt ?? false,
  });
}

function describe(r: PublicKeyRecord): string {
  const quota = r.quota === null ? '' : `, quota ${r.quota}`;
  return `${r.id}: ${r.tier}, org ${r.org}${r.user === null ? '' : `, user ${r.user}`}, scope ${r.scope}${quota}`;
}

function printIssued(io: Output, { key, record }: IssuedKey, json: boolean, verb: string): void {
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

function printRecord(io: Output, record: KeyRecord, json: boolean, text: string): void {
  io.out(json ? JSON.stringify(publicRecord(record)) : text);
}

function table(records: readonly PublicKeyRecord[]): string {
  const rows = records.map((r) => [r.id, r.tier, r.org, r.user ?? '-', r.scope, r.quota === null ? '-' : String(r.quota), r.grants.join(',') || '-', r.critpt ? 'yes' : 'no', r.revoked_at === null ? 'active' : 'revoked', r.created_at]);
  const all = [['id', 'tier', 'org', 'user', 'scope', 'quota', 'grants', 'critpt', 'status', 'created'], ...rows];
  const widths = all[0].map((_, c) => Math.max(...all.map((row) => row[c].length)));
  return all.map((row) => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ')).join('\n');
}

/** A command on an open store: at once on the file store, later on Redis. */
function perform(admin: KeyAdmin, command: string, operands: string[], values: Values, io: Output): Eventually<void> {
  const { json } = values;
  switch (command) {
    case 'create':
      return then(admin.apply(create(values)), (issued) => printIssued(io, issued, json, 'created'));
    case 'list':
      return then(admin.list(), (found) => {
        const records = (found ?? []).map(publicRecord);
        if (json) io.out(JSON.stringify(records, null, 2));
        else if (records.length === 0) io.err(`no keys in ${admin.where}`);
        else io.out(table(records));
      });
    case 'revoke':
      return then(admin.apply(revocation(keyId(operands[0]))), (record) => printRecord(io, record, json, `revoked ${describe(record)}`));
    case 'regenerate':
      return then(admin.apply(regeneration(keyId(operands[0]))), (issued) => printIssued(io, issued, json, 'regenerated'));
    case 'grant':
      return then(admin.apply(providerGrant(keyId(operands[0]), checkProviderSlug(operands[1]))), (record) => printRecord(io, record, json, `${record.id} grants: ${record.grants.join(', ')}`));
  }
}

function execute(argv: string[], io: Output): Eventually<void> {
  const { command, operands, values } = parse(argv);
  if (command === 'help') return io.out(USAGE);
  let store;
  try {
    store = storeOption(values.store);
  } catch (error) {
    throw new UsageError((error as ConfigError).message);
  }
  if (store === 'file') {
    if (command === 'migrate') throw new UsageError('migrate copies a state folder into Redis: give --store redis://HOST:PORT[/DB]');
    return perform(fileAdmin(values.state), command, operands, values, io);
  }
  return redisAdmin(store).then(async (admin) => {
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
    io.err(`keys: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (error instanceof KeyStoreError) {
    io.err(`keys: ${error.message}`);
    return 1;
  }
  throw error;
}

/** Run one keys command; the exit status (see the top of this file), later when the store is Redis. */
export function run(argv: string[], io: Output = CONSOLE): Eventually<number> {
  let done: Eventually<void>;
  try {
    done = execute(argv, io);
  } catch (error) {
    return failed(error, io);
  }
  return done instanceof Promise ? done.then(() => 0, (error: unknown) => failed(error, io)) : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = await run(process.argv.slice(2));
