/**
 * The keys command's flags, each once, in the form of src/shared/flag-table.ts. Those it shares
 * with the server (the state folder, the store, the snapshot) are the server's rows, so both read
 * the same variables with the same parsers and defaults. scripts/keys.ts reads the command line
 * from it; scripts/keys-help.ts writes the options part of --help from it.
 */
import { SERVER_FLAGS } from '../src/server-flags.ts';
import { asText, flagRow, switchFlag, type FlagTable } from '../src/shared/flag-table.ts';

/** A flag a command reads itself (a quota or a limit is checked where it is used). */
function optionalText(value: string, help: string) {
  return flagRow<string | undefined>({ value, default: undefined, parse: asText, help });
}

export const KEYS_FLAGS = {
  state: SERVER_FLAGS.state,
  store: SERVER_FLAGS.store,
  'store-ca': SERVER_FLAGS['store-ca'],
  'store-cert': SERVER_FLAGS['store-cert'],
  'store-key': SERVER_FLAGS['store-key'],
  'store-replicas': {
    ...SERVER_FLAGS['store-replicas'],
    help: 'with Redis: a change is done only once N replicas have it (`WAIT`)',
  },
  'store-replicas-timeout': SERVER_FLAGS['store-replicas-timeout'],
  snapshot: {
    ...SERVER_FLAGS.snapshot,
    help: 'snapshot folder whose current build names the providers a grant may name',
  },
  json: switchFlag('print JSON instead of text'),
  tier: optionalText('TIER', 'create: free, pro or commercial'),
  org: optionalText('ORG', 'create: the organisation the key is for; usage --history: only its scopes'),
  user: optionalText('USER', 'create: the user the key is for'),
  scope: optionalText('SCOPE', 'create: user or org, whose quota the key counts against'),
  quota: optionalText('N', "create: a commercial key's requests per 24 h window"),
  grant: flagRow<string[]>({
    value: 'PROVIDER_SLUG',
    default: [],
    shownDefault: 'none',
    parse: (slug) => [slug],
    multiple: true,
    help: 'create: a provider whose measurements a commercial key may read (again for each)',
  }),
  critpt: switchFlag('create: approve CritPt grading'),
  force: switchFlag('create, grant: grant a provider the served snapshot lacks, with a warning'),
  name: optionalText('NAME', 'create: a label for the key (what it is for); admin-token create: whose token it is'),
  expires: optionalText('DATE', 'create: when the key stops working, like 2027-01-31T00:00:00Z (default: never)'),
  overlap: optionalText('DURATION', 'regenerate: how long the old value keeps working, like 24h (default: not at all)'),
  limit: optionalText('N', 'audit: how many entries (default 20, at most 1000)'),
  history: switchFlag('usage: the answers served per UTC day and scope (default: the last 30 days)'),
  from: optionalText('DAY', 'usage --history: the first UTC day, like 2026-11-01 (default: 29 days before --to)'),
  to: optionalText('DAY', 'usage --history: the last UTC day (default: today)'),
} satisfies FlagTable;

export type KeysFlag = keyof typeof KEYS_FLAGS;
