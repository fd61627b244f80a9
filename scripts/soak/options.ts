/** The soak's command line: how long, how many clients, which store, and the size of the state it starts from. */
import { storeEnvironment, storeSettings, type ServerOptions, type StoreReplicas } from '../../src/config.ts';
import { flagsOrExit } from '../../src/shared/flags.ts';

const USAGE = `usage: npm run soak -- [--minutes N] [--clients N] [--store file|sentinel|redis://HOST:PORT[/DB]|...] [--keys N] [--windows N]

  --minutes N  how long to run (default 5)
  --clients N  concurrent clients (default 8)
  --store S    file (one server), a Redis two servers share, or sentinel: a Sentinel set of the
               soak's own (a primary, two replicas, three sentinels) that two servers share
  --keys N     keys seeded into the state folder before the servers start (default 100000; 0: none)
  --windows N  open quota windows seeded there (default 200000; 0: none)

The seeding is for the file store only: with --store redis://... --keys and --windows are ignored
(a shared Redis is not the soak's to fill). A Redis store takes every --store the server takes
(rediss://, redis-sentinel://, rediss-sentinel://); the TLS files and the replicas to wait for
come from the environment, as the server reads them (STORE_CA, STORE_CERT, STORE_KEY,
STORE_REPLICAS, STORE_REPLICAS_TIMEOUT), and reach the servers and the keys command the same way.
On Sentinel the run has failovers: a manual one (SENTINEL FAILOVER) 45 s in and every 4 minutes
after, and with --store sentinel the primary killed (SIGKILL) two minutes after each.`;

/** `--store sentinel`: the soak starts a Sentinel set of its own (scripts/sentinel-set.ts). */
export const OWN_SENTINELS = 'sentinel';

export interface SoakOptions {
  minutes: number;
  clients: number;
  /**
   * The store as the server reads it, and as given (passed on to the servers as is); resolved once
   * the soak's own set runs.
   */
  store: ServerOptions['store'];
  storeFlag: string;
  /** A Sentinel set of the soak's own is to be started (--store sentinel). */
  ownSentinels: boolean;
  /** The replicas the soak's own key changes wait for, from the environment. */
  replicas: StoreReplicas;
  /** One server on its state folder; two on a shared Redis. */
  servers: number;
  /** Keys and windows to seed; both 0 with Redis. */
  seedKeys: number;
  seedWindows: number;
}

const count = (text: string, name: string): number => {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0) {
    console.error(`--${name} must be a whole number, got ${JSON.stringify(text)}\n${USAGE}`);
    process.exit(2);
  }
  return n;
};

export function soakOptions(): SoakOptions {
  const { values } = flagsOrExit(
    {
      options: {
        minutes: { type: 'string', default: '5' },
        clients: { type: 'string', default: '8' },
        store: { type: 'string', default: 'file' },
        keys: { type: 'string', default: '100000' },
        windows: { type: 'string', default: '200000' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    USAGE,
  );
  const ownSentinels = values.store === OWN_SENTINELS;
  const { store, replicas } = storeFrom(ownSentinels ? 'redis-sentinel://127.0.0.1/own' : values.store);
  const file = store === 'file';
  return {
    minutes: Number(values.minutes),
    clients: Number(values.clients),
    store,
    storeFlag: values.store,
    ownSentinels,
    replicas,
    servers: file ? 1 : 2,
    seedKeys: file ? count(values.keys, 'keys') : 0,
    seedWindows: file ? count(values.windows, 'windows') : 0,
  };
}

/** The store and the replicas to wait for, from a --store value and the environment, as the server reads them. */
export function storeFrom(flag: string): { store: ServerOptions['store']; replicas: StoreReplicas } {
  return storeSettings((name) => (name === 'store' ? flag : storeEnvironment(name, process.env)));
}
