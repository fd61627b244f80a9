/**
 * Command-line flags, the same way for every command (the server, the build, the keys command,
 * the sample generator, the importer, the bench and the soak): node's parseArgs, strict, its
 * complaints turned into UsageError. A command prints a UsageError's message with its usage and
 * exits 2; anything else it exits 1 on.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { closestName } from './closest-name.ts';

/** The command line asked for something the command does not take. */
export class UsageError extends Error {}

/**
 * parseArgs (strict unless told otherwise: an unknown flag or a missing value is a UsageError). An
 * unknown flag is named with the one it most likely meant, as a mistyped route is.
 */
export function parseFlags<const T extends ParseArgsConfig>(config: T): ReturnType<typeof parseArgs<T>> {
  try {
    return parseArgs(config);
  } catch (error) {
    // An unknown flag is named even when parseArgs complained first of what followed it: the
    // value of `--prot 8080` is an operand to a command that takes none.
    throw unknownFlag(config) ?? new UsageError((error as Error).message);
  }
}

/**
 * The first flag of `config.args` that `config` does not take, and the closest one it does; null
 * when it takes them all. Found from parseArgs's tokens rather than its message, whose wording is
 * node's to change.
 */
function unknownFlag(config: ParseArgsConfig): UsageError | null {
  const known = Object.keys(config.options ?? {});
  const { tokens } = parseArgs({ ...config, strict: false, allowPositionals: true, tokens: true });
  const token = tokens.find((t) => t.kind === 'option' && !known.includes(t.name));
  if (token?.kind !== 'option') return null;
  // A one-letter flag (-x) has no long name to be a misspelling of. Two edits at least, as two
  // letters swapped (--prot) are, the commonest slip in a name as short as most flags'.
  const mostEdits = Math.max(2, Math.floor(token.name.length / 3));
  const meant = token.rawName.startsWith('--') ? closestName(token.name, known, mostEdits) : null;
  return new UsageError(`unknown option ${token.rawName}${meant ? `; did you mean --${meant}?` : ''}`);
}

/** A flag's whole number from `min` to `max`; the fallback when the flag was not given. */
export function integerFlag(
  name: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * For a script's top level: its flags, or the usage printed and the process ended there, 0 after
 * `--help` and 2 after a flag it does not take.
 */
export function flagsOrExit<const T extends ParseArgsConfig>(
  config: T,
  usage: string,
): ReturnType<typeof parseArgs<T>> {
  let parsed;
  try {
    parsed = parseFlags(config);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(usage);
    process.exit(0);
  }
  return parsed;
}
