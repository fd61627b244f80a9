/**
 * A command's flags as one table: for each, its name (the key), the environment variable it falls
 * back to, its default, how its text is read and its help line. The command line is read from it
 * (readFlags), the defaults come from it (flagDefaults), and so do --help and docs/operating.md's
 * options table (src/shared/flag-help.ts): a flag is stated once. The server's table is
 * src/server-flags.ts, the keys command's scripts/keys-flags.ts, the build's build/flags.ts.
 */
import { isCalendarDate } from './string-formats.ts';
import { integerFlag, parseFlags, UsageError } from './flags.ts';

export interface Flag<T> {
  /** What its value is called in help (`N`, `DIR`); a flag without one is a switch, true when given. */
  value?: string;
  /** The environment variable read when the flag is not given; a switch's is on when it is `1`. */
  env?: string;
  default: T;
  /** The default as help says it, when `String(default)` does not (`none`, a computed limit). */
  shownDefault?: string;
  /** The value of the flag's text (or its variable's); throws UsageError naming the flag. */
  parse: (text: string, name: string) => T;
  /** Markdown: docs/operating.md shows it as it is, --help without the backticks and link targets. */
  help: string;
  /** A one-letter alias (`-h`). */
  short?: string;
  /** Given more than once, each time adds to the value (parse returns the values of one text). */
  multiple?: boolean;
}

export type FlagTable = Readonly<Record<string, Flag<any>>>;

/** The value of each flag of a table. */
export type FlagValues<F extends FlagTable> = { -readonly [K in keyof F]: F[K] extends Flag<infer T> ? T : never };

/** What readFlags found: every flag's value, which were given on the command line, the operands. */
export interface ReadFlags<F extends FlagTable> {
  values: FlagValues<F>;
  given: ReadonlySet<keyof F & string>;
  positionals: string[];
  /** `--help` (or `-h`) was given: the caller prints the usage instead. */
  help: boolean;
  /** `--version` was given (and not `--help`): the caller prints its version line instead. */
  version: boolean;
}

type Environment = Readonly<Record<string, string | undefined>>;

/** A row as it is, typed: for a flag whose default (null, undefined) is not of its parsed values' type. */
export function flagRow<T>(flag: Flag<T>): Flag<T> {
  return flag;
}

/** A switch: off unless given (or its variable is `1`). */
export function switchFlag(help: string, env?: string): Flag<boolean> {
  return { env, default: false, shownDefault: 'off', parse: (text) => text === '1', help };
}

/** A parser for a whole number from `min` to `max`, refusing anything else with the flag's name. */
export function integerFrom(min: number, max: number): (text: string, name: string) => number {
  return (text, name) => integerFlag(name, text, 0, min, max);
}

/** A calendar date written YYYY-MM-DD (2026-02-30 is refused), naming the flag. */
export function calendarDate(text: string, name: string): string {
  if (!isCalendarDate(text)) throw new UsageError(`--${name} must be a date YYYY-MM-DD, got ${JSON.stringify(text)}`);
  return text;
}

/** The text as it is: a folder, a name, an address. */
export function asText(value: string): string {
  return value;
}

/** Each flag's default, as if nothing were given and the environment empty. */
export function flagDefaults<F extends FlagTable>(table: F): FlagValues<F> {
  return Object.fromEntries(Object.entries(table).map(([name, flag]) => [name, flag.default])) as FlagValues<F>;
}

/**
 * The command line, then the environment, then the defaults (a flag wins over its variable). An
 * unknown flag is a UsageError with the one it most likely meant; operands only when allowed.
 * `--help` (`-h`) and `--version` are every command's, so no table lists them.
 */
export function readFlags<F extends FlagTable>(
  table: F,
  args: readonly string[],
  env: Environment = {},
  { positionals: allowPositionals = false } = {},
): ReadFlags<F> {
  // parseArgs refuses a `short` or `multiple` that is there but undefined: only what the row says.
  const options = Object.fromEntries(
    Object.entries(table).map(([name, { value, short, multiple }]) => {
      return [name, { type: value ? 'string' : 'boolean', ...(short && { short }), ...(multiple && { multiple }) }];
    }),
  );
  const parsed = parseFlags({
    args: [...args],
    options: { ...options, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } } as Record<
      string,
      { type: 'string' | 'boolean' }
    >,
    allowPositionals,
  });
  const given = new Set<keyof F & string>();
  // --help answers with the usage even when a variable holds what the command would refuse.
  if (parsed.values.help === true || parsed.values.version === true) {
    const help = parsed.values.help === true;
    return { values: flagDefaults(table), given, positionals: parsed.positionals, help, version: !help };
  }
  const values: Record<string, unknown> = {};
  for (const [name, flag] of Object.entries(table)) {
    const found = (parsed.values as Record<string, unknown>)[name];
    if (found !== undefined) given.add(name);
    values[name] = found === undefined ? fromEnvironment(name, flag, env) : fromCommandLine(name, flag, found);
  }
  return { values: values as FlagValues<F>, given, positionals: parsed.positionals, help: false, version: false };
}

function fromCommandLine(name: string, flag: Flag<unknown>, found: unknown): unknown {
  if (!flag.value) return true;
  if (flag.multiple) return (found as string[]).flatMap((one) => flag.parse(one, name) as unknown[]);
  return flag.parse(found as string, name);
}

function fromEnvironment(name: string, flag: Flag<unknown>, env: Environment): unknown {
  const variable = flag.env === undefined ? undefined : env[flag.env];
  return variable === undefined ? flag.default : flag.parse(variable, name);
}
