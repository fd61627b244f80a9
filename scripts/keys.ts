/**
 * `npm run -s keys -- <command> [--state DIR] [--json]` (or `node dist/keys.mjs <command> ...`):
 * manage API keys. This only parses arguments and prints; src/keys.ts does the work. A new key
 * is printed once, alone on stdout (notes go to stderr, so `KEY=$(npm run -s keys -- create ...)`
 * captures just the key). No command prints a stored hash or an existing key.
 *
 * Exit status: 0 done, 1 the store refused (unreadable file, unknown or revoked id, a grant the
 * key cannot use or a provider the snapshot does not serve), 2 bad usage or a bad value.
 * `run(argv, io)` is the whole command as a function (the tests call it in-process); the last
 * lines run it when this file is the program.
 */
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, resolveOptions } from '../src/config.ts';
import {
  checkProviderSlug,
  createKey,
  grantProvider,
  KEY_ID_PATTERN,
  KEY_PREFIX,
  KeyInputError,
  KeyStoreError,
  loadKeys,
  publicRecord,
  regenerateKey,
  revokeKey,
  setCritptApproval,
  ungrantProvider,
  type IssuedKey,
  type KeyScope,
} from '../src/keys.ts';
import { readCounts, usageOf } from '../src/key-usage.ts';
import { QuotaStateError } from '../src/quota.ts';
import { servedProviders } from '../src/served-providers.ts';
import type { Tier } from '../src/shared/routes.ts';
import { describe, keyTable, printIssued, printRecord, usageTable, type Output } from './keys-print.ts';

export type { Output } from './keys-print.ts';

const HELP = `usage: npm run -s keys -- <command> [--state DIR] [--json]
   or: node dist/keys.mjs <command> [--state DIR] [--json]

commands:
  create --tier free|pro|commercial --org ORG [--user USER] [--scope user|org]
         [--quota N] [--grant PROVIDER_SLUG]... [--critpt] [--force]
                          issue a key and print it once (scope defaults to user when
                          --user is given, else org; --quota and --grant are for
                          commercial keys)
  list                    one line per key (never the key itself); --json for every field
  revoke ID               stop a key at once
  regenerate ID           replace a key's value, keeping its id, quota scope and grants;
                          prints the new key once
  grant ID PROVIDER_SLUG [--force]
                          let a commercial key read one provider's measurements; the
                          provider must be in the served snapshot (--force: warn and grant)
  ungrant ID PROVIDER_SLUG
                          take a grant back
  critpt ID on|off        approve or withdraw CritPt grading for a key
  usage                   each quota scope of the active keys: requests counted in its
                          current window, its limit and what remains (data and CritPt);
                          reads the state folder without stopping the server or writing

options:
  --state DIR     private state folder (default: $STATE_DIR, else state)
  --snapshot DIR  snapshot folder whose current build names the providers
                  (default: $SNAPSHOT_DIR, else snapshot)
  --json          print JSON instead of text
  --help          this text

usage takes the limits from QUOTA_FREE, QUOTA_PRO, QUOTA_COMMERCIAL and QUOTA_CRITPT,
as the server does; set them as the server runs with them.`;

const OPTIONS = {
  // The same folder the server uses when it is started with STATE_DIR.
  state: { type: 'string', default: process.env.STATE_DIR ?? 'state' },
  snapshot: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  tier: { type: 'string' },
  org: { type: 'string' },
  user: { type: 'string' },
  scope: { type: 'string' },
  quota: { type: 'string' },
  grant: { type: 'string', multiple: true },
  critpt: { type: 'boolean' },
  force: { type: 'boolean' },
} as const;

type OptionName = keyof typeof OPTIONS;
const COMMON: readonly OptionName[] = ['state', 'json', 'help'];

const COMMANDS: Record<string, { operands: readonly string[]; options: readonly OptionName[] }> = {
  create: { operands: [], options: ['tier', 'org', 'user', 'scope', 'quota', 'grant', 'critpt', 'force', 'snapshot'] },
  list: { operands: [], options: [] },
  revoke: { operands: ['ID'], options: [] },
  regenerate: { operands: ['ID'], options: [] },
  grant: { operands: ['ID', 'PROVIDER_SLUG'], options: ['force', 'snapshot'] },
  ungrant: { operands: ['ID', 'PROVIDER_SLUG'], options: [] },
  critpt: { operands: ['ID', 'on|off'], options: [] },
  usage: { operands: [], options: [] },
};

class UsageError extends Error {}

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

function onOff(text: string): boolean {
  if (text !== 'on' && text !== 'off') throw new UsageError(`critpt takes on or off, got ${JSON.stringify(text)}`);
  return text === 'on';
}

/**
 * A grant names a provider the served snapshot answers for, or the key could never use it. With
 * --force a slug the snapshot lacks (a provider the next build adds) is granted with a warning.
 */
function checkServed(io: Output, slugs: readonly string[], values: Values): void {
  if (slugs.length === 0) return;
  const dir = values.snapshot ?? process.env.SNAPSHOT_DIR ?? 'snapshot';
  let served;
  try {
    served = servedProviders(dir);
  } catch (error) {
    if (!values.force) throw new KeyStoreError(`${(error as Error).message}; cannot check the provider (pass --snapshot DIR, or --force to grant unchecked)`);
    io.err(`keys: warning: ${(error as Error).message}; granting unchecked (--force)`);
    return;
  }
  for (const slug of slugs.map(checkProviderSlug)) {
    if (served.slugs.has(slug)) continue;
    const known = [...served.slugs].sort();
    const listed = known.length > 10 ? `${known.slice(0, 10).join(', ')}, ... (${known.length})` : known.join(', ');
    const message = `provider ${slug} is not in the served snapshot ${served.buildId} (${dir}); it has ${listed || 'none'}`;
    if (!values.force) throw new KeyStoreError(`${message}. Use --force to grant it anyway (a provider a coming build adds)`);
    io.err(`keys: warning: ${message}; granted anyway (--force)`);
  }
}

function create(io: Output, values: Values): IssuedKey {
  if (values.tier === undefined) throw new UsageError('create needs --tier free|pro|commercial');
  if (values.org === undefined) throw new UsageError('create needs --org ORG');
  const input = {
    tier: values.tier as Tier,
    org: values.org,
    user: values.user ?? null,
    scope: values.scope as KeyScope | undefined,
    quota: quotaOf(values.quota),
    grants: values.grant ?? [],
    critpt: values.critpt ?? false,
  };
  // A tier that cannot hold grants is refused before the snapshot is looked at.
  if (input.grants.length > 0 && input.tier === 'commercial') checkServed(io, input.grants, values);
  return createKey(values.state, input);
}

function usage(io: Output, state: string, json: boolean): void {
  let options;
  try {
    options = resolveOptions([], process.env);
  } catch (error) {
    if (error instanceof ConfigError) throw new UsageError(error.message.replace(/^--(\S+)/, (_, flag: string) => `${flag.toUpperCase().replaceAll('-', '_')}`));
    throw error;
  }
  if (options === 'help') return;
  const rows = usageOf(loadKeys(state) ?? [], readCounts(state), options.limits, Date.now());
  if (json) io.out(JSON.stringify(rows, null, 2));
  else if (rows.length === 0) io.err(`no active keys in ${state}`);
  else io.out(usageTable(rows));
}

function execute(argv: string[], io: Output): void {
  const { command, operands, values } = parse(argv);
  const { state, json } = values;
  switch (command) {
    case 'help':
      io.out(HELP);
      return;
    case 'create':
      return printIssued(io, create(io, values), json, 'created');
    case 'list': {
      const records = (loadKeys(state) ?? []).map(publicRecord);
      if (json) io.out(JSON.stringify(records, null, 2));
      else if (records.length === 0) io.err(`no keys in ${state}`);
      else io.out(keyTable(records));
      return;
    }
    case 'revoke': {
      const record = revokeKey(state, keyId(operands[0]));
      return printRecord(io, record, json, `revoked ${describe(record)}`);
    }
    case 'regenerate':
      return printIssued(io, regenerateKey(state, keyId(operands[0])), json, 'regenerated');
    case 'grant': {
      const id = keyId(operands[0]);
      checkServed(io, [checkProviderSlug(operands[1])], values);
      const record = grantProvider(state, id, operands[1]);
      return printRecord(io, record, json, `${record.id} now holds ${record.grants.length} grant${record.grants.length === 1 ? '' : 's'}, including ${operands[1]}`);
    }
    case 'ungrant': {
      const record = ungrantProvider(state, keyId(operands[0]), checkProviderSlug(operands[1]));
      return printRecord(io, record, json, `${record.id} no longer holds a grant for ${operands[1]} (${record.grants.length} left)`);
    }
    case 'critpt': {
      const id = keyId(operands[0]);
      const record = setCritptApproval(state, id, onOff(operands[1]));
      return printRecord(io, record, json, `${record.id}: CritPt grading ${record.critpt ? 'approved' : 'withdrawn'}`);
    }
    case 'usage':
      return usage(io, state, json);
  }
}

/** Run one keys command; the exit status (see the top of this file). */
export function run(argv: string[], io: Output = CONSOLE): number {
  try {
    execute(argv, io);
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof KeyInputError) {
      io.err(`keys: ${error.message}\n\n${HELP}`);
      return 2;
    }
    if (error instanceof KeyStoreError || error instanceof QuotaStateError) {
      io.err(`keys: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) process.exitCode = run(process.argv.slice(2));
