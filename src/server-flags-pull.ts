/**
 * The server's flags for pulling published snapshots from an origin (src/pull/), in the form of
 * src/shared/flag-table.ts: a part of src/server-flags.ts's table, in its place there (after
 * --snapshot), and the option they make (snapshotSource, which src/config.ts calls): the CA file read,
 * an origin without a key refused.
 */
import { readFileSync } from 'node:fs';
import { asText, flagRow, integerFrom, type FlagTable, type FlagValues } from './shared/flag-table.ts';
import { UsageError } from './shared/flags.ts';
import { parsePublicKey, type TrustedKey } from './shared/release.ts';
import { httpUrl } from './server-flag-parsers.ts';

/** Keys as given: each `ed25519:...`; in the variable, several separated by commas or spaces. */
function trustedKeys(text: string, name: string): TrustedKey[] {
  const keys = text.split(/[\s,]+/).filter((word) => word !== '');
  try {
    return keys.map(parsePublicKey);
  } catch (error) {
    throw new UsageError(`--${name}: ${(error as Error).message}, got ${JSON.stringify(text)}`);
  }
}

/** A minute: a new build reaches every server within two, and an origin sees one small GET a minute per server. */
export const DEFAULT_POLL_SECONDS = 60;

export const PULL_FLAGS = {
  'snapshot-from': flagRow<string | null>({
    value: 'URL',
    env: 'SNAPSHOT_FROM',
    default: null,
    shownDefault: 'none: builds are put in the snapshot folder by hand',
    parse: httpUrl,
    help:
      'the http(s) URL of a published snapshot folder (`npm run build -- --publish DIR --sign KEY`): new releases ' +
      'are pulled into `--snapshot`, checked and switched to (see [Pulling snapshots from an origin]' +
      '(#pulling-snapshots-from-an-origin)); needs `--snapshot-key`',
  }),
  'snapshot-key': flagRow<TrustedKey[]>({
    value: 'KEY',
    env: 'SNAPSHOT_KEYS',
    default: [],
    shownDefault: 'none',
    parse: trustedKeys,
    multiple: true,
    help:
      'a public key (`ed25519:...`, as `npm run signing-key -- create` prints it) whose releases are taken; again ' +
      'for each key during a rotation (the variable: separated by commas)',
  }),
  'snapshot-ca': flagRow<string | undefined>({
    value: 'FILE',
    env: 'SNAPSHOT_CA',
    default: undefined,
    shownDefault: "the system's roots",
    parse: asText,
    help: "PEM file of a CA the origin's certificate may chain to, beside the system's roots",
  }),
  'snapshot-poll': {
    value: 'S',
    env: 'SNAPSHOT_POLL',
    default: DEFAULT_POLL_SECONDS,
    parse: integerFrom(1, 86_400),
    help: "seconds between looks at the origin's release.json (a conditional GET)",
  },
} satisfies FlagTable;

export interface SnapshotSource {
  url: string;
  keys: TrustedKey[];
  /** The CA file's PEM (--snapshot-ca), read once at start; null: the system's roots. */
  ca: Buffer | null;
  pollSeconds: number;
}

/** --snapshot-from and the flags that go with it: an origin needs a key, and the flags of one need an origin. */
export function snapshotSource(v: FlagValues<typeof PULL_FLAGS>): SnapshotSource | null {
  const url = v['snapshot-from'];
  if (url === null) {
    const stray = (['snapshot-key', 'snapshot-ca'] as const).filter((f) =>
      f === 'snapshot-key' ? v[f].length > 0 : v[f],
    );
    if (stray.length) throw new UsageError(`${stray.map((f) => `--${f}`).join(', ')}: only with --snapshot-from URL`);
    return null;
  }
  if (v['snapshot-key'].length === 0)
    throw new UsageError('--snapshot-from needs --snapshot-key: the public key its releases are signed with');
  let ca: Buffer | null = null;
  if (v['snapshot-ca'] !== undefined) {
    try {
      ca = readFileSync(v['snapshot-ca']);
    } catch (error) {
      throw new UsageError(`--snapshot-ca ${v['snapshot-ca']}: ${(error as Error).message}`);
    }
  }
  return { url, keys: v['snapshot-key'], ca, pollSeconds: v['snapshot-poll'] };
}
