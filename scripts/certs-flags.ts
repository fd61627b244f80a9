/**
 * `npm run certs`'s flags, each once, in the form of src/shared/flag-table.ts: scripts/certs.ts
 * reads the command line from it and writes the options part of its --help from it.
 */
import { isIP } from 'node:net';
import { asText, flagRow, integerFrom, type FlagTable } from '../src/shared/flag-table.ts';
import { UsageError } from '../src/shared/flags.ts';

/** What the server certificate names when neither --ip nor --dns is given: this machine's loopback. */
export const LOOPBACK_NAMES = { ip: ['127.0.0.1'], dns: ['localhost'] };

/** A host name as a certificate's DNS SAN takes it: labels of letters, digits and hyphens, `*.` first at most. */
const DNS_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/i;

function ipAddress(text: string, name: string): string[] {
  if (isIP(text) === 0) throw new UsageError(`--${name} takes an IPv4 or IPv6 address, got ${JSON.stringify(text)}`);
  return [text];
}

function dnsName(text: string, name: string): string[] {
  if (!DNS_NAME.test(text)) throw new UsageError(`--${name} takes a host name, got ${JSON.stringify(text)}`);
  return [text];
}

export const CERTS_FLAGS = {
  out: { value: 'DIR', default: 'certs', parse: asText, help: 'the folder to write them in (created; made 0700)' },
  ip: flagRow<string[]>({
    value: 'ADDR',
    default: [],
    shownDefault: '127.0.0.1 when neither --ip nor --dns is given',
    parse: ipAddress,
    multiple: true,
    help: 'an IP address the server certificate is for: Redis, a sentinel, nginx (again for each)',
  }),
  dns: flagRow<string[]>({
    value: 'NAME',
    default: [],
    shownDefault: 'localhost when neither --ip nor --dns is given',
    parse: dnsName,
    multiple: true,
    help: 'a host name the server certificate is for (again for each)',
  }),
  days: { value: 'N', default: 825, parse: integerFrom(1, 36500), help: 'days each certificate is valid, the CA too' },
} satisfies FlagTable;
