import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { run } from '../../../scripts/signing-key.ts';
import { parsePublicKey, publicKeyText, signingKeyOf } from '../../../src/shared/release.ts';
import { caught } from '../../helpers/process.ts';

const cli = suite('signing-key');

let dir = '';
cli.before.each(() => {
  dir = mkdtempSync(join(tmpdir(), 'signing-key-'));
});
cli.after.each(() => {
  rmSync(dir, { recursive: true, force: true });
});

cli('should write a new private key, 0600, and print its public key alone on stdout', () => {
  const file = join(dir, 'release.key');
  const said = caught((io) => run(['create', '--out', file], io));
  assert.is(said.status, 0, said.stderr);
  assert.match(said.stdout, /^ed25519:[A-Za-z0-9_-]{43}\n$/);
  assert.match(said.stderr, `signing key written to ${file}`);
  assert.is(statSync(file).mode & 0o777, 0o600);
  const publicText = said.stdout.trim();
  assert.is(
    publicKeyText(signingKeyOf(readFileSync(file, 'utf8'))),
    publicText,
    'the key printed is the pair of the one kept',
  );
  assert.is(parsePublicKey(publicText).text, publicText);
});

cli('should never write over an existing file', () => {
  const file = join(dir, 'release.key');
  assert.is(caught((io) => run(['create', '--out', file], io)).status, 0);
  const before = readFileSync(file, 'utf8');
  const again = caught((io) => run(['create', '--out', file], io));
  assert.is(again.status, 1);
  assert.is(again.stdout, '', 'no public key printed for a key not kept');
  assert.match(again.stderr, /^signing-key: .*EEXIST/);
  assert.is(readFileSync(file, 'utf8'), before);
  const other = join(dir, 'other');
  writeFileSync(other, 'mine');
  assert.is(caught((io) => run(['create', `--out=${other}`], io)).status, 1);
  assert.is(readFileSync(other, 'utf8'), 'mine');
});

cli('should print the public key of a private key again', () => {
  const file = join(dir, 'release.key');
  const created = caught((io) => run(['create', '--out', file], io));
  const said = caught((io) => run(['public', file], io));
  assert.is(said.status, 0, said.stderr);
  assert.is(said.stdout, created.stdout);
  assert.is(said.stderr, '');
});

cli('should fail with 1 on a key file missing or not an Ed25519 private key', () => {
  const missing = caught((io) => run(['public', join(dir, 'missing')], io));
  assert.is(missing.status, 1);
  assert.match(missing.stderr, /^signing-key: .*ENOENT/);
  const rsa = join(dir, 'rsa.pem');
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
  writeFileSync(rsa, privateKey.export({ format: 'pem', type: 'pkcs8' }) as string);
  const wrong = caught((io) => run(['public', rsa], io));
  assert.is(wrong.status, 1);
  assert.match(wrong.stderr, 'the signing key is rsa, not ed25519');
  assert.is(wrong.stdout, '');
});

cli('should fail with 2 on bad usage, saying what it takes', () => {
  for (const argv of [
    [],
    ['create'],
    ['create', 'extra', '--out', join(dir, 'k')],
    ['public'],
    ['public', 'a', 'b'],
    ['sign'],
  ]) {
    const said = caught((io) => run(argv, io));
    assert.is(said.status, 2, argv.join(' '));
    assert.is(said.stdout, '', argv.join(' '));
    assert.match(said.stderr, '(npm run signing-key -- --help)', argv.join(' '));
  }
  assert.match(caught((io) => run([], io)).stderr, 'signing-key takes create --out FILE or public FILE, got nothing');
  assert.match(caught((io) => run(['create'], io)).stderr, 'signing-key create needs --out FILE');
  assert.is(caught((io) => run(['create', '--nope'], io)).status, 2, 'an unknown flag');
});

cli('should print its usage on --help', () => {
  const said = caught((io) => run(['--help'], io));
  assert.is(said.status, 0);
  assert.match(said.stdout, 'usage: npm run -s signing-key -- create --out FILE');
  assert.match(said.stdout, '--out FILE');
});

cli.run();
