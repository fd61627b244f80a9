/**
 * The program's version: package.json's (test/unit/src/shared/version.test.ts holds them equal),
 * said by every command's `--version`, the server's start-up line, /readyz and /metrics.
 * CHANGELOG.md says, for each version, the formats it reads and writes.
 */
export const VERSION = '0.2.0';

export const PROGRAM = 'benchmark-data-api';

/**
 * `--version`'s line: the version, then the format of each file it reads and writes (`snapshot
 * format 3, ...`), if any.
 */
export function versionLine(formats: Readonly<Record<string, number>>): string {
  const written = Object.entries(formats).map(([what, format]) => `${what.replaceAll('_', ' ')} format ${format}`);
  return written.length ? `${PROGRAM} ${VERSION} (${written.join(', ')})` : `${PROGRAM} ${VERSION}`;
}
