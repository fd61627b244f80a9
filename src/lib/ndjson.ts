/** Newline-delimited JSON as it arrives: a stream cut into whole lines, however it is chunked. */
import type { Readable } from 'node:stream';

/**
 * Call `onLine` with each non-empty line of `source` as soon as it is whole (the last one at
 * the end even without a newline); resolves when the stream ends, rejects when it breaks.
 */
export function relayLines(source: Readable, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let pending = '';
    const emit = (line: string) => {
      if (line.trim()) onLine(line);
    };
    source.setEncoding('utf8');
    source.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      lines.forEach(emit);
    });
    source.on('end', () => {
      emit(pending);
      resolve();
    });
    source.on('error', reject);
  });
}
