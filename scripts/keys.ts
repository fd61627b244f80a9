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
import { storeOf } from '../src/config.ts';
import { readFlags } from '../src/shared/flag-table.ts';
import { CONSOLE_OUTPUT } from '../src/shared/command-output.ts';
import { UsageError } from '../src/shared/flags.ts';
import { KEYS_FLAGS, type KeysFlag } from './keys-flags.ts';
import type { Eventually } from '../src/lib/eventually.ts';
import { fileAdmin, redisAdmin } from '../src/key-admin/stores.ts';
import { KeyInputError, KeyStoreError } from '../src/keys/record.ts';
import { QuotaStateError } from '../src/quota/replay.ts';
import type { Output } from './keys-print.ts';
import { perform } from './keys-perform.ts';
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
  create: {
    operands: [],
    options: ['tier', 'org', 'user', 'scope', 'quota', 'grant', 'critpt', 'force', 'snapshot', 'name', 'expires'],
  },
  list: { operands: [], options: [] },
  revoke: { operands: ['ID'], options: [] },
  regenerate: { operands: ['ID'], options: ['overlap'] },
  rename: { operands: ['ID', 'NAME|none'], options: [] },
  expire: { operands: ['ID', 'DATE|never'], options: [] },
  grant: { operands: ['ID', 'PROVIDER_SLUG'], options: ['force', 'snapshot'] },
  ungrant: { operands: ['ID', 'PROVIDER_SLUG'], options: [] },
  critpt: { operands: ['ID', 'on|off'], options: [] },
  quota: { operands: ['ID', 'N|default'], options: [] },
  usage: { operands: [], options: ['history', 'from', 'to', 'org'] },
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
