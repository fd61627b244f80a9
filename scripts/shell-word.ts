/**
 * A word as a POSIX shell reads it back unchanged: as it is when it is safe, else single-quoted.
 * For the commands our scripts print for a person to paste.
 */
export function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
