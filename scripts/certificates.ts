/**
 * Certificates made with `openssl`: the tests' and the bench's set (Redis over TLS) in a
 * temporary folder, and the pieces `npm run certs` (scripts/certs.ts) makes an operator's set
 * with. The tests' set: a CA, a server certificate for 127.0.0.1 and localhost signed by it, one
 * for another name (redis.invalid) signed by it too, a client certificate signed by it, and an
 * unrelated CA that signed nothing here. EC keys: quick to make. When openssl is missing the
 * suites say they skipped.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const OPENSSL_INSTALLED = spawnSync('openssl', ['version']).error === undefined;

export interface Certificates {
  dir: string;
  /** The CA that signed the certificates below. */
  ca: string;
  /** Server certificate and key: SANs IP:127.0.0.1 and DNS:localhost. */
  server: { cert: string; key: string };
  /** Server certificate and key for DNS:redis.invalid only: a name that does not match. */
  wrongName: { cert: string; key: string };
  /** A client certificate and key, for `tls-auth-clients yes`. */
  client: { cert: string; key: string };
  /** A CA that signed none of these. */
  otherCa: string;
  remove(): void;
}

/** A certificate's PEM file and its key's. */
export interface CertificatePair {
  cert: string;
  key: string;
}

function openssl(dir: string, args: readonly string[]): void {
  const done = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (done.status !== 0) throw new Error(`openssl ${args.join(' ')} failed (${done.status}):\n${done.stderr}`);
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Private keys readable by their owner only, whatever the umask made them. */
function keepPrivate(dir: string, key: string): void {
  chmodSync(join(dir, key), 0o600);
}

/** A self-signed CA, `name`.pem and `name`.key in `dir`, valid `days`. */
export function makeCa(dir: string, name: string, days = 2): CertificatePair {
  openssl(dir, [
    'req',
    '-x509',
    ...KEY,
    '-keyout',
    `${name}.key`,
    '-out',
    `${name}.pem`,
    '-days',
    String(days),
    '-subj',
    `/CN=${name}`,
  ]);
  keepPrivate(dir, `${name}.key`);
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

/**
 * A certificate for `name` signed by ca.pem (and ca.key) of `dir`, with these extensions (openssl
 * x509v3 config lines), valid `days`; the request and extension files it took are removed.
 */
export function makeSigned(dir: string, name: string, extensions: string, days = 2): CertificatePair {
  writeFileSync(join(dir, `${name}.ext`), `basicConstraints=CA:FALSE\n${extensions}\n`);
  openssl(dir, ['req', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`]);
  keepPrivate(dir, `${name}.key`);
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-set_serial',
    String(Date.now()),
    '-days',
    String(days),
    '-out',
    `${name}.pem`,
    '-extfile',
    `${name}.ext`,
  ]);
  for (const made of [`${name}.csr`, `${name}.ext`]) rmSync(join(dir, made), { force: true });
  return { cert: join(dir, `${name}.pem`), key: join(dir, `${name}.key`) };
}

/** Made in `dir` (created), else in a new temporary folder. */
export function makeCertificates(dir = mkdtempSync(join(tmpdir(), 'tls-test-'))): Certificates {
  mkdirSync(dir, { recursive: true });
  makeCa(dir, 'ca');
  makeCa(dir, 'other-ca');
  return {
    dir,
    ca: join(dir, 'ca.pem'),
    server: makeSigned(dir, 'server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth'),
    wrongName: makeSigned(dir, 'wrong-name', 'subjectAltName=DNS:redis.invalid\nextendedKeyUsage=serverAuth'),
    client: makeSigned(dir, 'client', 'extendedKeyUsage=clientAuth'),
    otherCa: join(dir, 'other-ca.pem'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
