/**
 * The keys command's admin-token and audit commands, and the audit entry of each change the
 * command makes (src/keys/audit.ts): the trail holds every change to the keys and to the admin
 * tokens, whether made through the admin listener or here. Tokens are changed here only, so
 * without these entries nothing would record who could reach the admin listener, and when.
 */
import { userInfo } from 'node:os';
import { UsageError } from '../src/shared/flags.ts';
import { recover, whenReady, type Eventually } from '../src/lib/eventually.ts';
import { systemClock } from '../src/lib/clock.ts';
import type { KeyAdmin } from '../src/key-admin/stores.ts';
import { AUDIT_READ_MAX, type AuditEntry } from '../src/keys/audit.ts';
import {
  ADMIN_TOKEN_ID_PATTERN,
  ADMIN_TOKEN_PREFIX,
  publicToken,
  type AdminTokenRecord,
} from '../src/keys/admin-tokens.ts';
import type { Output } from './keys-print.ts';

/**
 * After a change, its audit entry: who ran the command, on this machine, and the id of the key
 * or admin token changed (never its value). The change is made by then: a trail that cannot be
 * written (an ACL without XADD, a full disk) is said on stderr, and the command still prints what
 * it did (a new key's or token's value would be lost otherwise) and exits 0.
 */
export function audited<T>(
  admin: KeyAdmin,
  io: Output,
  action: string,
  recordOf: (done: T) => { readonly id: string },
  changes: (done: T) => Record<string, unknown>,
) {
  return (done: T): Eventually<T> => {
    const record = recordOf(done);
    const entry: AuditEntry = {
      at: new Date().toISOString(),
      actor: 'keys-command',
      actor_name: commandUser(),
      action,
      key: record.id,
      changes: changes(done),
      from: 'local',
    };
    const warn = (error: unknown) =>
      io.err(
        `keys: warning: ${action} of ${record.id} was made ` +
          `but not written to the audit trail: ${(error as Error).message}`,
      );
    return whenReady(
      recover(() => admin.audit.append(entry), warn),
      () => done,
    );
  };
}

type IssuedToken = { token: string; record: AdminTokenRecord };

function commandUser(): string {
  try {
    return `system user ${userInfo().username}`;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}`;
  }
}

function auditLimit(text: string | undefined): number {
  if (text === undefined) return 20;
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > AUDIT_READ_MAX)
    throw new UsageError(`--limit must be an integer from 1 to ${AUDIT_READ_MAX}, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** One line of `audit`: when, who, from where, what, and the changes when there are any. */
function auditLine(e: AuditEntry): string {
  const changes = Object.keys(e.changes).length ? ` ${JSON.stringify(e.changes)}` : '';
  return `${e.at}  ${e.actor} (${e.actor_name}) from ${e.from}  ${e.action} ${e.key}${changes}`;
}

/** admin-token create|list|revoke and audit. */
export function performTokenOrAudit(
  admin: KeyAdmin,
  command: string,
  operands: string[],
  values: { name?: string; limit?: string; json: boolean },
  io: Output,
): Eventually<void> {
  const { json } = values;
  switch (command) {
    case 'admin-token create': {
      if (values.name === undefined) throw new UsageError('admin-token create needs --name NAME (whose token it is)');
      const made = whenReady(
        admin.tokens.create(values.name, systemClock),
        audited(
          admin,
          io,
          'admin-token.create',
          (t: IssuedToken) => t.record,
          ({ record }: IssuedToken) => ({ name: record.name }),
        ),
      );
      return whenReady(made, ({ token, record }) => {
        if (json) return io.out(JSON.stringify({ token, ...publicToken(record) }));
        io.err(`created admin token ${record.id} (${record.name})`);
        io.out(token);
        io.err(
          'This token is shown only once; the store keeps only its hash. ' +
            'Send it as Authorization: Bearer TOKEN to the admin listener, or sign in with it at /admin/.',
        );
      });
    }
    case 'admin-token list':
      return whenReady(admin.tokens.list(), (records) => {
        if (json) io.out(JSON.stringify(records.map(publicToken), null, 2));
        else if (records.length === 0) io.err(`no admin tokens in ${admin.where}`);
        else
          io.out(
            records
              .map(
                (r) => `${r.id}  ${r.name}  created ${r.created_at}${r.revoked_at ? `  revoked ${r.revoked_at}` : ''}`,
              )
              .join('\n'),
          );
      });
    case 'admin-token revoke':
      if (!ADMIN_TOKEN_ID_PATTERN.test(operands[0])) {
        // A whole token given for an id is not echoed back.
        const given = operands[0].startsWith(ADMIN_TOKEN_PREFIX) ? `${ADMIN_TOKEN_PREFIX}...` : operands[0];
        throw new UsageError(
          `not an admin token id: ${JSON.stringify(given)} (ids look like adm_0123456789ab; see admin-token list)`,
        );
      }
      return whenReady(
        whenReady(
          admin.tokens.revoke(operands[0], systemClock),
          audited(
            admin,
            io,
            'admin-token.revoke',
            (r: AdminTokenRecord) => r,
            () => ({}),
          ),
        ),
        (record) =>
          io.out(json ? JSON.stringify(publicToken(record)) : `revoked admin token ${record.id} (${record.name})`),
      );
    case 'audit':
      return whenReady(admin.audit.latest(auditLimit(values.limit)), (entries) => {
        if (json) io.out(JSON.stringify(entries, null, 2));
        else if (entries.length === 0) io.err(`no changes recorded in ${admin.where} yet`);
        else io.out(entries.map(auditLine).join('\n'));
      });
    default:
      throw new Error(`unreachable: no command ${command}`);
  }
}
