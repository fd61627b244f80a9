import { generateKeyPairSync, sign } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  chunkPath,
  newSigningKey,
  openRelease,
  parsePublicKey,
  publicKeyText,
  RELEASE_FORMAT,
  RELEASE_PAYLOAD_TYPE,
  ReleaseRefused,
  releaseSize,
  signingKeyOf,
  signRelease,
  unsignedRelease,
  type Envelope,
  type Release,
} from '../../../../src/shared/release.ts';
import { throwsWith } from '../../../helpers/throws.ts';

const SUM_A = 'a'.repeat(64);
const SUM_B = 'b'.repeat(64);

function aRelease(over: Partial<Release> = {}): Release {
  return {
    release_format: RELEASE_FORMAT,
    snapshot_format: 3,
    build_id: 'b-2026-11-27',
    version: 7,
    published_at: '2026-11-27T10:00:00.000Z',
    expires: '2026-12-11T10:00:00.000Z',
    files: [
      { path: 'manifest.json', size: 10, sha256: SUM_A, chunks: [[SUM_A, 10, 1]] },
      {
        path: 'index/r.list.json',
        size: 30,
        sha256: SUM_B,
        chunks: [
          [SUM_B, 10, 0],
          [SUM_A, 20, 0],
        ],
      },
    ],
    ...over,
  };
}

/** A key pair as signing-key create makes it: the private key read back from its PEM, the public one parsed. */
function aKey() {
  const { privatePem, publicText } = newSigningKey();
  return { privateKey: signingKeyOf(privatePem), trusted: parsePublicKey(publicText), publicText };
}

/** What openRelease throws for `text`: its kind and message (it must throw ReleaseRefused). */
function refusal(text: string, trusted = [KEY.trusted]): { kind: string; message: string } {
  try {
    openRelease(text, trusted);
  } catch (error) {
    assert.instance(error, ReleaseRefused);
    return { kind: (error as ReleaseRefused).kind, message: (error as Error).message };
  }
  return assert.unreachable('the release was taken') as never;
}

/** A release's envelope, changed after signing. */
function tampered(text: string, change: (envelope: Envelope) => void): string {
  const envelope = JSON.parse(text) as Envelope;
  change(envelope);
  return JSON.stringify(envelope);
}

const KEY = aKey();

const open = suite('openRelease');

open('should give back the release signed, and the keyid that signed it', () => {
  const release = aRelease();
  const text = signRelease(release, KEY.privateKey);
  assert.equal(openRelease(text, [KEY.trusted]), { release, keyid: KEY.trusted.keyid });
  assert.equal(unsignedRelease(text), release);
  assert.is(KEY.trusted.keyid.length, 16);
});

open('should find the key that signed among several trusted', () => {
  const other = aKey();
  const text = signRelease(aRelease(), KEY.privateKey);
  assert.is(openRelease(text, [other.trusted, KEY.trusted]).keyid, KEY.trusted.keyid);
});

open('should refuse a release signed by a key not trusted, naming the key that signed and the one trusted', () => {
  const other = aKey();
  const { kind, message } = refusal(signRelease(aRelease(), other.privateKey));
  assert.is(kind, 'signature');
  assert.match(message, other.trusted.keyid);
  assert.match(message, KEY.trusted.keyid);
  assert.match(message, 'does not trust');
});

open('should refuse a payload changed after signing', () => {
  const text = tampered(signRelease(aRelease(), KEY.privateKey), (envelope) => {
    envelope.payload = JSON.stringify(aRelease({ version: 8 }));
  });
  const { kind, message } = refusal(text);
  assert.is(kind, 'signature');
  assert.match(message, `the signature of key ${KEY.trusted.keyid} does not verify`);
  const spaced = tampered(signRelease(aRelease(), KEY.privateKey), (envelope) => {
    envelope.payload = `${envelope.payload} `;
  });
  assert.is(refusal(spaced).kind, 'signature', 'the exact text is signed, not its JSON value');
});

open('should refuse a signature of the right key made over the payload without the domain prefix', () => {
  const payload = JSON.stringify(aRelease());
  const sig = sign(null, Buffer.from(payload), KEY.privateKey).toString('base64');
  const envelope: Envelope = {
    payload_type: RELEASE_PAYLOAD_TYPE,
    payload,
    signatures: [{ keyid: KEY.trusted.keyid, sig }],
  };
  assert.is(refusal(JSON.stringify(envelope)).kind, 'signature');
});

open('should refuse a signature that is not a signature at all', () => {
  for (const sig of ['', 'AAAA', '!!!not base64', 'A'.repeat(256)]) {
    const text = tampered(signRelease(aRelease(), KEY.privateKey), (envelope) => {
      envelope.signatures[0].sig = sig;
    });
    assert.is(refusal(text).kind, 'signature', sig);
  }
});

open('should refuse what is not JSON, or not a release envelope, as malformed', () => {
  const text = signRelease(aRelease(), KEY.privateKey);
  const cases: Array<[string, string]> = [
    ['not JSON', '{"payload_type":'],
    ['empty', ''],
    ['wrong payload type', tampered(text, (e) => (e.payload_type = 'application/vnd.in-toto+json'))],
    ['no signatures', tampered(text, (e) => (e.signatures = []))],
    ['no payload', tampered(text, (e) => delete (e as Partial<Envelope>).payload)],
    ['an array', '[]'],
    ['a keyid too long', tampered(text, (e) => (e.signatures[0].keyid = 'k'.repeat(65)))],
  ];
  for (const [name, bad] of cases) assert.is(refusal(bad).kind, 'malformed', name);
  assert.match(refusal('{"payload_type":').message, 'release.json is not JSON');
});

/** A release signed by the trusted key, so only its own content can be wrong. */
function signed(release: unknown): string {
  return signRelease(release as Release, KEY.privateKey);
}

open('should refuse a signed payload that is not JSON', () => {
  const { privateKey, trusted } = KEY;
  const payload = 'not json';
  const sig = sign(null, Buffer.from(`benchmark-data-api release 1\n${payload}`), privateKey).toString('base64');
  const envelope = { payload_type: RELEASE_PAYLOAD_TYPE, payload, signatures: [{ keyid: trusted.keyid, sig }] };
  const { kind, message } = refusal(JSON.stringify(envelope));
  assert.is(kind, 'malformed');
  assert.match(message, 'the signed release is not JSON');
});

open('should refuse a signed release whose file paths could leave the build folder', () => {
  for (const path of [
    '../etc/passwd',
    '/abs',
    '.hidden/x',
    'a/b/c',
    'index/..',
    'index/.x',
    '..',
    '',
    'a//b',
    'a\\b',
  ]) {
    const files = [{ path, size: 1, sha256: SUM_A, chunks: [[SUM_A, 1, 0]] }];
    const { kind, message } = refusal(signed(aRelease({ files } as Partial<Release>)));
    assert.is(kind, 'malformed', path);
    assert.match(message, '/files/0/path', path);
  }
  for (const path of ['manifest.json', 'bodies.pack', 'index/r.list.json', 'a/b']) {
    const files = [{ path, size: 1, sha256: SUM_A, chunks: [[SUM_A, 1, 0]] }];
    assert.equal(openRelease(signed(aRelease({ files } as Partial<Release>)), [KEY.trusted]).release.files, files);
  }
});

open('should refuse a signed release with a field out of its bounds', () => {
  const file = aRelease().files[0];
  const cases: Array<[string, unknown]> = [
    ['a short sha256', { files: [{ ...file, sha256: 'a'.repeat(63) }] }],
    ['an uppercase sha256', { files: [{ ...file, sha256: 'A'.repeat(64) }] }],
    ['a chunk sum not hex', { files: [{ ...file, chunks: [['z'.repeat(64), 10, 0]] }] }],
    ['an empty chunk', { files: [{ ...file, chunks: [[SUM_A, 0, 0]] }] }],
    ['a chunk gzipped 2', { files: [{ ...file, chunks: [[SUM_A, 10, 2]] }] }],
    ['a chunk of two fields', { files: [{ ...file, chunks: [[SUM_A, 10]] }] }],
    ['a file field unknown', { files: [{ ...file, mode: 0o777 }] }],
    ['no files', { files: [] }],
    ['version 0', { version: 0 }],
    ['a fractional version', { version: 1.5 }],
    ['another release format', { release_format: RELEASE_FORMAT + 1 }],
    ['a build id with a slash', { build_id: '../b' }],
    ['an expiry not a date', { expires: 'next week' }],
    ['an expiry on no day', { expires: '2026-02-30T00:00:00Z' }],
  ];
  for (const [name, over] of cases)
    assert.is(refusal(signed(aRelease(over as Partial<Release>))).kind, 'malformed', name);
  const missing = aRelease() as Partial<Release>;
  delete missing.expires;
  assert.is(refusal(signed(missing)).kind, 'malformed', 'no expiry');
});

const keys = suite('release keys');

keys('should print a key pair as ed25519: and 32 bytes in base64url, from either half', () => {
  const { privatePem, publicText } = newSigningKey();
  assert.match(publicText, /^ed25519:[A-Za-z0-9_-]{43}$/);
  assert.is(publicKeyText(signingKeyOf(privatePem)), publicText);
  assert.match(privatePem, /^-----BEGIN PRIVATE KEY-----\n/);
  const parsed = parsePublicKey(` ${publicText}\n`);
  assert.is(parsed.text, publicText, 'the text is trimmed');
  assert.is(publicKeyText(parsed.key), publicText);
  assert.is.not(parsePublicKey(newSigningKey().publicText).keyid, parsed.keyid);
});

keys('should refuse a public key of another prefix, length or spelling', () => {
  const { publicText } = newSigningKey();
  const raw = publicText.slice('ed25519:'.length);
  const base64 = Buffer.from(raw, 'base64url').toString('base64');
  // The 43rd character carries 2 bits past the 32 bytes: one set, the same bytes decode, but it is not their spelling.
  const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const lastBitSet = raw.slice(0, -1) + ALPHABET[ALPHABET.indexOf(raw[42]) ^ 1];
  assert.ok(Buffer.from(lastBitSet, 'base64url').equals(Buffer.from(raw, 'base64url')));
  const bad = [
    `ed448:${raw}`,
    raw,
    `ED25519:${raw}`,
    `ed25519:${raw.slice(0, -2)}`,
    `ed25519:${raw}AA`,
    `ed25519:${Buffer.alloc(31).toString('base64url')}`,
    `ed25519:${Buffer.alloc(33).toString('base64url')}`,
    `ed25519:${base64}`,
    `ed25519:${raw}=`,
    `ed25519:${lastBitSet}`,
    `ed25519:${raw.slice(0, 20)} ${raw.slice(20)}`,
    '',
  ];
  for (const text of bad) throwsWith(() => parsePublicKey(text), Error, /"ed25519:" and 32 bytes in base64url/);
});

keys('should refuse a signing key that is not Ed25519', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
  throwsWith(() => signingKeyOf(pem), Error, /the signing key is rsa, not ed25519/);
  assert.throws(() => signingKeyOf('not a pem'));
});

const sizes = suite('chunk paths and release sizes');

sizes('should store a chunk under the first two digits of its checksum, .gz when compressed', () => {
  assert.is(chunkPath([SUM_A, 10, 0]), `chunks/aa/${SUM_A}`);
  assert.is(chunkPath([SUM_B, 10, 1]), `chunks/bb/${SUM_B}.gz`);
});

sizes("should sum a release's file sizes and count its chunks", () => {
  assert.equal(releaseSize(aRelease()), { bytes: 40, chunks: 3 });
});

open.run();
keys.run();
sizes.run();
