/**
 * Dataset problems: each names the file, the record (slug or id) and the JSON pointer, so a
 * maintainer can go straight to the line. The build collects all of them before it stops.
 */

export interface Problem {
  file: string;
  /** Slug or id of the record, when the problem is inside one. */
  record?: string;
  /** JSON pointer into the file ('' for the whole file). */
  pointer: string;
  message: string;
  /**
   * Where in the text, for a file that is not valid JSON (1-based), with the line shown and a caret
   * under the column.
   */
  at?: { line: number; column: number; excerpt: string };
}

export function formatProblem({ file, record, pointer, message, at }: Problem): string {
  if (at) return `${file}:${at.line}:${at.column}: ${message}\n${at.excerpt}`;
  return `${file}${record ? ` [${record}]` : ''} ${pointer || '/'}: ${message}`;
}

export class DatasetError extends Error {
  constructor(readonly problems: Problem[]) {
    const count = `${problems.length} problem${problems.length === 1 ? '' : 's'}`;
    super(`${count} in the datasets:\n${problems.map(formatProblem).join('\n')}`);
    this.name = 'DatasetError';
  }
}

/** Escape one key for use in a JSON pointer (RFC 6901). */
export function pointerSegment(key: string | number): string {
  return String(key).replaceAll('~', '~0').replaceAll('/', '~1');
}

export function pointerOf(...segments: (string | number)[]): string {
  return segments.map((s) => `/${pointerSegment(s)}`).join('');
}

/** Read the value a JSON pointer names, or undefined. */
export function readPointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let here: unknown = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (here === null || typeof here !== 'object' || !Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}
