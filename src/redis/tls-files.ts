/**
 * The TLS files of a `rediss://` store (`--store-ca`, `--store-cert`, `--store-key`), read once
 * when the options are resolved, by the server and the keys command alike: a file that cannot be
 * read, or a certificate and key that do not go together, stops the start with a usage error
 * rather than failing every connection later.
 */
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { errorCode } from '../lib/error-code.ts';
import type { RedisTls } from './connection.ts';

/** Paths as given; undefined when not given. */
export interface TlsFiles {
  ca?: string;
  cert?: string;
  key?: string;
}

/** The option naming each file, for messages. */
export const TLS_FILE_FLAGS = { ca: '--store-ca', cert: '--store-cert', key: '--store-key' } as const;

/** The options among `files` that were given. */
export function givenTlsFiles(files: TlsFiles): string[] {
  return (Object.keys(TLS_FILE_FLAGS) as (keyof TlsFiles)[])
    .filter((name) => files[name] !== undefined)
    .map((name) => TLS_FILE_FLAGS[name]);
}

function read(name: keyof TlsFiles, path: string | undefined): Buffer | null {
  if (path === undefined) return null;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`${TLS_FILE_FLAGS[name]} ${path} cannot be read: ${errorCode(error)}`);
  }
}

/** The files' contents; throws Error naming the option and the problem. */
export function readTlsFiles(files: TlsFiles): RedisTls {
  if ((files.cert === undefined) !== (files.key === undefined)) {
    throw new Error(
      files.cert === undefined
        ? '--store-key needs --store-cert: a client key goes with its certificate'
        : '--store-cert needs --store-key: a client certificate goes with its key',
    );
  }
  const tls: RedisTls = { ca: read('ca', files.ca), cert: read('cert', files.cert), key: read('key', files.key) };
  // OpenSSL skips what is not a certificate in a CA file: an empty or wrong file would leave
  // nothing to trust, silently.
  if (tls.ca && !tls.ca.includes('-----BEGIN CERTIFICATE-----'))
    throw new Error(`--store-ca ${files.ca} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  if (tls.cert) {
    try {
      createSecureContext({ cert: tls.cert, key: tls.key ?? undefined });
    } catch (error) {
      throw new Error(
        `--store-cert ${files.cert} and --store-key ${files.key} cannot be used together: ${(error as Error).message}`,
      );
    }
  }
  return tls;
}
