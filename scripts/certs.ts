/**
 * `npm run certs -- --out DIR [--ip ADDR ...] [--dns NAME ...] [--days N]`: a private CA and the
 * certificates a deployment's TLS needs (see USAGE), made with openssl by scripts/certificates.ts
 * as the tests' are.
 */
import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { flagsUsage } from '../src/shared/flag-help.ts';
import { readFlags } from '../src/shared/flag-table.ts';
import { UsageError } from '../src/shared/flags.ts';
import { makeCa, makeSigned, OPENSSL_INSTALLED } from './certificates.ts';
import { CERTS_FLAGS, LOOPBACK_NAMES } from './certs-flags.ts';

const USAGE = `usage: npm run certs -- --out DIR [--ip ADDR ...] [--dns NAME ...] [--days N]

Make a private CA and two certificates it signs, with openssl, in DIR (deploy/README.md says
where each goes):
  ca.pem, ca.key          the CA: every Redis, sentinel, server and nginx trusts ca.pem; keep
                          ca.key offline once the certificates are made
  server.pem, server.key  Redis, the sentinels and nginx (its SANs: every --ip and --dns; for
                          serverAuth and clientAuth, as Redis presents it to the primary and to
                          other sentinels)
  client.pem, client.key  the servers and the keys command (--store-cert, --store-key), and the
                          operator's client certificate for nginx's admin block
Private keys are written 0600. Nothing is overwritten: DIR must not hold a ca.key yet.

options:
${flagsUsage(CERTS_FLAGS)}`;

/** subjectAltName of the server certificate: the addresses and names given, loopback when none. */
function subjectAltNames(ips: readonly string[], names: readonly string[]): string {
  const none = ips.length === 0 && names.length === 0;
  const ip = none ? LOOPBACK_NAMES.ip : ips;
  const dns = none ? LOOPBACK_NAMES.dns : names;
  return [...ip.map((a) => `IP:${a}`), ...dns.map((n) => `DNS:${n}`)].join(',');
}

function main(): void {
  const { values, help, positionals } = readFlags(CERTS_FLAGS, process.argv.slice(2), {}, { positionals: true });
  if (help) return console.log(USAGE);
  if (positionals.length) throw new UsageError(`npm run certs takes no operands, got ${positionals.join(' ')}`);
  if (!OPENSSL_INSTALLED) throw new Error('openssl is not installed (apt-get install openssl)');
  const out = values.out;
  if (existsSync(join(out, 'ca.key'))) throw new Error(`${out} already holds a CA (ca.key): nothing overwritten`);
  mkdirSync(out, { recursive: true });
  chmodSync(out, 0o700);
  const days = values.days;
  makeCa(out, 'ca', days);
  const sans = subjectAltNames(values.ip, values.dns);
  makeSigned(out, 'server', `subjectAltName=${sans}\nextendedKeyUsage=serverAuth,clientAuth`, days);
  makeSigned(out, 'client', 'extendedKeyUsage=clientAuth', days);
  console.log(`certs: a CA and a server certificate for ${sans} and a client certificate, ${days} days, in ${out}`);
}

try {
  main();
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n(npm run certs -- --help lists the options)`);
    process.exitCode = 2;
  } else {
    console.error(`certs: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
