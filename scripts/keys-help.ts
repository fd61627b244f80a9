/** The keys command's help text (scripts/keys.ts); its options from the flag table (scripts/keys-flags.ts). */
import { flagsUsage } from '../src/shared/flag-help.ts';
import { KEYS_FLAGS } from './keys-flags.ts';

export const USAGE = `usage: npm run -s keys -- <command> [--state DIR] [--store file|redis://...|rediss://...|redis-sentinel://...] [--json]
   or: node dist/keys.mjs <command> [options]

commands:
  create --tier free|pro|commercial --org ORG [--user USER] [--scope user|org]
         [--quota N] [--grant PROVIDER_SLUG]... [--critpt] [--force]
         [--name NAME] [--expires DATE]
                          issue a key and print it once (scope defaults to user when
                          --user is given, else org; --quota and --grant are for
                          commercial keys; --name labels it, --expires ends it then)
  list                    one line per key (never the key itself): its label, its first
                          eight and last four characters, state, expiry and last use (at
                          most a minute stale); --json for every field
  revoke ID               stop a key at once
  regenerate ID [--overlap DURATION]
                          replace a key's value, keeping its id, quota scope and grants;
                          prints the new key once; the old value stops at once, or keeps
                          working for the overlap (24h, 90m, 7d) so clients can roll over
  rename ID NAME|none     label a key, or take its label off
  expire ID DATE|never    set when a key stops working (a date-time with its offset, like
                          2027-01-31T00:00:00Z), or make it never expire; an expired key
                          given a later date works again
  grant ID PROVIDER_SLUG [--force]
                          let a commercial key read one provider's measurements; the
                          provider must be in the served snapshot (--force: warn and grant)
  ungrant ID PROVIDER_SLUG
                          take a grant back
  critpt ID on|off        approve or withdraw CritPt grading for a key
  quota ID N|default      set a commercial key's requests per 24 h window (default: the
                          server's commercial default)
  usage                   each quota scope of the active keys: requests counted in its
                          current window, its limit and what remains (data and CritPt);
                          read beside the running server, writing nothing
  usage --history [--from DAY] [--to DAY] [--org ORG]
                          the answers served (counted 200s, CritPt gradings) per UTC
                          day and scope, by day then scope
  migrate --state DIR --store redis://...
                          carry the folder's keys, open quota windows, admin tokens and
                          audit trail into Redis (again is harmless: what is there is
                          kept, nothing added twice; ids Redis holds otherwise, and audit
                          entries older than Redis's own, are named and left: exit 1)
  admin-token create --name NAME
                          issue a token for the admin listener (--admin-port) and print
                          it once; NAME says whose it is (it names them in the audit trail)
  admin-token list        the admin tokens (never the tokens themselves)
  admin-token revoke ID   stop an admin token at once
  audit [--limit N]       the latest changes to the keys and admin tokens (default 20,
                          at most 1000), newest first: who, what, when and from where

options:
${flagsUsage(KEYS_FLAGS)}

usage counts against the limits the server enforces, as it recorded them when it started
(limits.json in the state folder, or in Redis); before any server has, against
QUOTA_FREE, QUOTA_PRO, QUOTA_COMMERCIAL and QUOTA_CRITPT or their defaults, as a server
would. A line on stderr says which.

Run it as the user the server runs as (runuser -u USER -- ...). Run as root, it gives
the files it writes the store's owner and mode; another user's changes are refused.`;
