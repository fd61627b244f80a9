/**
 * A flag table (src/shared/flag-table.ts) as words: the options part of a command's --help, and
 * the rows of docs/operating.md's options table, which a test compares with the doc. The help
 * lines are markdown; the terminal gets them without backticks and link targets.
 */
import type { Flag, FlagTable } from './flag-table.ts';

/** Columns --help wraps its lines at. */
const HELP_WIDTH = 100;

/** `--port N`, `--metrics`. */
function label(name: string, flag: Flag<unknown>): string {
  return `--${name}${flag.value ? ` ${flag.value}` : ''}`;
}

/** The default as help says it: `off` for a switch, null for a flag without one. */
function defaultText(flag: Flag<unknown>): string | null {
  if (flag.shownDefault !== undefined) return flag.shownDefault;
  if (!flag.value) return 'off';
  if (flag.default === undefined || flag.default === null) return null;
  return Array.isArray(flag.default) ? flag.default.join(', ') || null : String(flag.default);
}

/** How a flag's variable is set: `PORT`, or `METRICS=1` for a switch. */
function variable(flag: Flag<unknown>): string | null {
  if (flag.env === undefined) return null;
  return flag.value ? flag.env : `${flag.env}=1`;
}

/** Markdown for a terminal: `code` and [text](#anchor) read as their text. */
export function plainText(markdown: string): string {
  return markdown.replace(/\[([^\]]+)\]\((?:#|https?:)[^)]*\)/g, '$1').replaceAll('`', '');
}

/** `head` then the words of `text`, in lines of at most `width` columns; the next lines start with `indent`. */
function wrapped(head: string, indent: string, text: string, width: number): string[] {
  const lines: string[] = [];
  let line = head;
  let fresh = true;
  for (const word of text.split(' ')) {
    if (!fresh && line.length + 1 + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else line += (fresh ? '' : ' ') + word;
    fresh = false;
  }
  return [...lines, line];
}

/** The options part of --help: each flag with its help, variable and default; `--help` and `--version` last. */
export function flagsUsage(table: FlagTable): string {
  const labels = Object.entries(table).map(([name, flag]) => label(name, flag));
  const column = Math.max(...labels.map((l) => l.length), '--help, -h'.length) + 4;
  const lines = Object.entries(table).flatMap(([name, flag], i) => {
    // A switch is off unless given: its default goes without saying.
    const shown = flag.value ? defaultText(flag) : null;
    const notes = [variable(flag) && `env ${variable(flag)}`, shown !== null && `default ${shown}`];
    const said = notes.filter(Boolean).join(', ');
    const help = plainText(said ? `${flag.help} (${said})` : flag.help);
    return wrapped(`  ${labels[i]}`.padEnd(column), ' '.repeat(column), help, HELP_WIDTH);
  });
  return [
    ...lines,
    `${'  --help, -h'.padEnd(column)}this text`,
    `${'  --version'.padEnd(column)}the version, and the format of each file it reads and writes`,
  ].join('\n');
}

/** docs/operating.md's options table: flag (variable), default, meaning. */
export function flagsMarkdown(table: FlagTable): string {
  const rows = Object.entries(table).map(([name, flag]) => {
    const env = variable(flag);
    const named = `\`${label(name, flag)}\`${env ? ` (\`${env}\`)` : ''}`;
    return `| ${named} | ${defaultText(flag) ?? 'none'} | ${flag.help} |`;
  });
  return ['| Flag | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
