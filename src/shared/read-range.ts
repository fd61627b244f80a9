/** Reading a stretch of an open file whole, however few bytes each read returns. */
import { readSync } from 'node:fs';

/** `length` bytes of the file from `position`; fewer when the file ends first. Read errors are thrown as they come. */
export function readRangeSync(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  let read = 0;
  for (let n = -1; read < length && n !== 0; read += n) n = readSync(fd, buffer, read, length - read, position + read);
  return buffer.subarray(0, read);
}
