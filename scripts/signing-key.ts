/**
 * `npm run -s signing-key -- create --out FILE` and `npm run -s signing-key -- public FILE`: the
 * Ed25519 key pair that signs published snapshots (build/publish/release.ts). `create` writes the
 * private key, PKCS#8 PEM, 0600, never over an existing file, and prints the public key alone on
 * stdout (`ed25519:` and 32 bytes in base64url), which is what every pulling server is given
 * (`--snapshot-key`); `public` prints it again from the private key.
 *
 * Exit status: 0 done, 1 the file could not be written or read, 2 bad usage.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { flagsUsage } from '../src/shared/flag-help.ts';
import { asText, flagRow, readFlags, type FlagTable } from '../src/shared/flag-table.ts';
import { CONSOLE_OUTPUT, type CommandOutput } from '../src/shared/command-output.ts';
import { UsageError } from '../src/shared/flags.ts';
import { newSigningKey, publicKeyText, signingKeyOf } from '../src/shared/release.ts';

const FLAGS = {
  out: flagRow<string | undefined>({
    value: 'FILE',
    default: undefined,
    shownDefault: 'none: create needs it',
    parse: asText,
    help: 'create: where the private key is written (0600; an existing file is never overwritten)',
  }),
} satisfies FlagTable;

const USAGE = `usage: npm run -s signing-key -- create --out FILE
       npm run -s signing-key -- public FILE

The key pair that signs published snapshots (npm run build -- --publish DIR --sign FILE):
  create   write a new private key to FILE (PKCS#8 PEM, 0600) and print its public key
  public   print the public key of the private key in FILE
The public key (ed25519:...) is what each server pulling the snapshots is given:
--snapshot-key. Keep the private key where the builds are made, and nowhere else.

options:
${flagsUsage(FLAGS)}`;

export function run(argv: string[], io: CommandOutput = CONSOLE_OUTPUT): number {
  try {
    const { values, positionals, help } = readFlags(FLAGS, argv, {}, { positionals: true });
    if (help) {
      io.out(USAGE);
      return 0;
    }
    const [command, ...operands] = positionals;
    if (command === 'create' && operands.length === 0) {
      if (!values.out) throw new UsageError('signing-key create needs --out FILE');
      const { privatePem, publicText } = newSigningKey();
      writeFileSync(values.out, privatePem, { mode: 0o600, flag: 'wx' });
      io.err(`signing key written to ${values.out} (keep it secret); its public key:`);
      io.out(publicText);
      return 0;
    }
    if (command === 'public' && operands.length === 1) {
      io.out(publicKeyText(signingKeyOf(readFileSync(operands[0], 'utf8'))));
      return 0;
    }
    throw new UsageError(
      `signing-key takes create --out FILE or public FILE, got ${positionals.join(' ') || 'nothing'}`,
    );
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`${error.message}\n(npm run signing-key -- --help)`);
      return 2;
    }
    io.err(`signing-key: ${(error as Error).message}`);
    return 1;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = run(process.argv.slice(2));
