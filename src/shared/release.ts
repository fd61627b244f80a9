/**
 * A published snapshot (a release): the signed list of a build's files, each cut into chunks
 * (src/shared/chunks.ts) stored under their checksum, so that a folder of immutable files and one
 * signed `release.json` can sit on any static origin (nginx, a bucket, a CDN) and servers pull
 * from it (src/pull/). The envelope carries the release's JSON as text and the Ed25519 signatures
 * of that exact text (as DSSE does: no canonical JSON to agree on), made with a domain prefix so
 * that a signature of this key over anything else is never a valid release.
 *
 * What a release promises, and the server enforces: who made it (a key the server trusts), that it
 * is newer than what the server holds (`version`, against rollback), that it is fresh (`expires`,
 * against an origin frozen at an old release) and every byte of every file (`sha256` of the
 * chunks and of the whole file).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { ValidateFunction } from 'ajv';
import { createAjv, TRUSTED_SCHEMAS } from './ajv.ts';
import { sha256 } from './sha256.ts';

export const RELEASE_FILE = 'release.json';
export const RELEASE_FORMAT = 1;
export const RELEASE_PAYLOAD_TYPE = 'application/vnd.benchmark-data-api.release+json';
/** Signed are these bytes and the payload after them: a signature made for another purpose never verifies here. */
const SIGNING_PREFIX = 'benchmark-data-api release 1\n';
/** A chunk: its checksum (sha256, hex), its length, and whether it is stored gzip-compressed. */
export type ReleaseChunk = [sha256: string, length: number, gzipped: 0 | 1];

export interface ReleaseFile {
  /** Inside the build folder: `manifest.json`, `bodies.pack`, `index/<route id>.json`. */
  path: string;
  size: number;
  sha256: string;
  chunks: ReleaseChunk[];
}

export interface Release {
  release_format: number;
  /** The manifest format of the build: a server reads only its own. */
  snapshot_format: number;
  build_id: string;
  /** Grows with every release of the origin; a server never takes one below what it holds. */
  version: number;
  published_at: string;
  /** After this a server takes the release no more, and says so of the build it serves from it. */
  expires: string;
  files: ReleaseFile[];
}

export interface Signature {
  keyid: string;
  sig: string;
}

export interface Envelope {
  payload_type: string;
  payload: string;
  signatures: Signature[];
}

/** A file's path in a build, safe to join under a folder: no `..`, no leading dot, at most one folder deep. */
const BUILD_PATH = '^(?!.*(^|/)\\.)[A-Za-z0-9][A-Za-z0-9._-]{0,127}(/[A-Za-z0-9][A-Za-z0-9._-]{0,127})?$';
const HEX64 = '^[0-9a-f]{64}$';

const RELEASE_SCHEMA = {
  type: 'object',
  required: ['release_format', 'snapshot_format', 'build_id', 'version', 'published_at', 'expires', 'files'],
  properties: {
    release_format: { const: RELEASE_FORMAT },
    snapshot_format: { type: 'integer' },
    build_id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' },
    version: { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    published_at: { type: 'string', format: 'date-time' },
    expires: { type: 'string', format: 'date-time' },
    files: {
      type: 'array',
      minItems: 1,
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['path', 'size', 'sha256', 'chunks'],
        additionalProperties: false,
        properties: {
          path: { type: 'string', pattern: BUILD_PATH },
          size: { type: 'integer', minimum: 0, maximum: 2 ** 40 },
          sha256: { type: 'string', pattern: HEX64 },
          chunks: {
            type: 'array',
            maxItems: 1_000_000,
            items: {
              type: 'array',
              prefixItems: [
                { type: 'string', pattern: HEX64 },
                { type: 'integer', minimum: 1, maximum: 64 * 1024 * 1024 },
                { enum: [0, 1] },
              ],
              minItems: 3,
              maxItems: 3,
            },
          },
        },
      },
    },
  },
} as const;

const ENVELOPE_SCHEMA = {
  type: 'object',
  required: ['payload_type', 'payload', 'signatures'],
  properties: {
    payload_type: { const: RELEASE_PAYLOAD_TYPE },
    payload: { type: 'string' },
    signatures: {
      type: 'array',
      minItems: 1,
      maxItems: 16,
      items: {
        type: 'object',
        required: ['keyid', 'sig'],
        properties: { keyid: { type: 'string', maxLength: 64 }, sig: { type: 'string', maxLength: 256 } },
      },
    },
  },
} as const;

/** Compiled at first use: a server that pulls nothing pays nothing at start. */
let validators: { release: ValidateFunction; envelope: ValidateFunction } | null = null;
function validate(): { release: ValidateFunction; envelope: ValidateFunction } {
  if (!validators) {
    const ajv = createAjv({ ...TRUSTED_SCHEMAS, allErrors: false });
    validators = { release: ajv.compile(RELEASE_SCHEMA), envelope: ajv.compile(ENVELOPE_SCHEMA) };
  }
  return validators;
}

/** Why a release is not taken: the kind names the check (what /readyz and the log say). */
export class ReleaseRefused extends Error {
  constructor(
    readonly kind: 'malformed' | 'signature' | 'rollback' | 'expired' | 'format',
    message: string,
  ) {
    super(message);
  }
}

/** A public key the server trusts, with the short id signatures name it by. */
export interface TrustedKey {
  keyid: string;
  key: KeyObject;
  /** As the operator gives it: `ed25519:` and the key's 32 bytes in base64url. */
  text: string;
}

const PUBLIC_PREFIX = 'ed25519:';
/** The DER header of an Ed25519 SubjectPublicKeyInfo: the 32 raw bytes follow it. */
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

function keyidOf(raw: Buffer): string {
  return sha256(raw, 'hex').slice(0, 16);
}

/** A trusted key from its printed form (`ed25519:BASE64URL`); throws saying what is wrong. */
export function parsePublicKey(text: string): TrustedKey {
  const trimmed = text.trim();
  const raw = Buffer.from(trimmed.slice(PUBLIC_PREFIX.length), 'base64url');
  if (!trimmed.startsWith(PUBLIC_PREFIX) || raw.length !== 32 || raw.toString('base64url') !== trimmed.slice(8))
    throw new Error(`a snapshot key is "ed25519:" and 32 bytes in base64url (as signing-key create prints it)`);
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: 'der', type: 'spki' });
  return { keyid: keyidOf(raw), key, text: trimmed };
}

/** The printed form of a key pair's public half. */
export function publicKeyText(key: KeyObject): string {
  const der = (key.type === 'public' ? key : createPublicKey(key)).export({ format: 'der', type: 'spki' });
  return `${PUBLIC_PREFIX}${der.subarray(SPKI_ED25519.length).toString('base64url')}`;
}

/** A new signing key pair: the private key as PKCS#8 PEM (to keep secret), the public key printed. */
export function newSigningKey(): { privatePem: string; publicText: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }) as string,
    publicText: publicKeyText(publicKey),
  };
}

/** A private signing key from its PEM; throws when it is not an Ed25519 private key. */
export function signingKeyOf(pem: string): KeyObject {
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the signing key is ${key.asymmetricKeyType}, not ed25519`);
  return key;
}

/** The envelope of a release, signed: the text published as release.json. */
export function signRelease(release: Release, privateKey: KeyObject): string {
  const payload = JSON.stringify(release);
  const raw = Buffer.from(publicKeyText(privateKey).slice(PUBLIC_PREFIX.length), 'base64url');
  const sig = sign(null, Buffer.from(SIGNING_PREFIX + payload), privateKey).toString('base64');
  const envelope: Envelope = {
    payload_type: RELEASE_PAYLOAD_TYPE,
    payload,
    signatures: [{ keyid: keyidOf(raw), sig }],
  };
  return `${JSON.stringify(envelope, null, 1)}\n`;
}

/** The release an envelope carries, read without checking any signature (the publisher's own last one). */
export function unsignedRelease(text: string): Release {
  const envelope = JSON.parse(text) as Envelope;
  return JSON.parse(envelope.payload) as Release;
}

/**
 * The release of a published envelope, its signature checked against the trusted keys: throws
 * ReleaseRefused (`malformed` or `signature`) naming what is wrong. Freshness and order are the
 * caller's (checkRelease).
 */
export function openRelease(text: string, trusted: readonly TrustedKey[]): { release: Release; keyid: string } {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch (error) {
    throw new ReleaseRefused('malformed', `release.json is not JSON: ${(error as Error).message}`);
  }
  if (!validate().envelope(envelope)) throw new ReleaseRefused('malformed', 'release.json is not a signed release');
  const { payload, signatures } = envelope as Envelope;
  const signed = Buffer.from(SIGNING_PREFIX + payload);
  const known = signatures.filter((s) => trusted.some((k) => k.keyid === s.keyid));
  for (const signature of known) {
    const key = trusted.find((k) => k.keyid === signature.keyid)!;
    if (verify(null, signed, key.key, Buffer.from(signature.sig, 'base64'))) {
      let release: unknown;
      try {
        release = JSON.parse(payload);
      } catch (error) {
        throw new ReleaseRefused('malformed', `the signed release is not JSON: ${(error as Error).message}`);
      }
      const validRelease = validate().release;
      if (!validRelease(release)) {
        const first = validRelease.errors?.[0];
        throw new ReleaseRefused(
          'malformed',
          `the signed release is malformed: ${first?.instancePath} ${first?.message}`,
        );
      }
      return { release: release as Release, keyid: signature.keyid };
    }
  }
  const ids = (list: readonly { keyid: string }[]) => list.map((s) => s.keyid).join(', ');
  throw new ReleaseRefused(
    'signature',
    known.length > 0
      ? `the signature of key ${ids(known)} does not verify`
      : `signed by key ${ids(signatures)}, which this server does not trust (it trusts ${ids(trusted)})`,
  );
}

/** Where a chunk is stored, from the published folder's root. */
export function chunkPath([sum, , gzipped]: ReleaseChunk): string {
  return `chunks/${sum.slice(0, 2)}/${sum}${gzipped ? '.gz' : ''}`;
}

/** Bytes a release's files take, and how many chunks they are cut into. */
export function releaseSize(release: Release): { bytes: number; chunks: number } {
  let bytes = 0;
  let chunks = 0;
  for (const file of release.files) {
    bytes += file.size;
    chunks += file.chunks.length;
  }
  return { bytes, chunks };
}
