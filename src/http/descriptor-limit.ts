/**
 * How many descriptors this process may open, read once at start. Node has no getrlimit, so it
 * is read from /proc/self/limits (Linux): the soft "Max open files", the one the kernel holds
 * the process to. libuv, on EMFILE at accept, closes the new connection at once (a reset to the
 * client, whatever it asked), so the server must keep its connections under this itself
 * (src/http/connection-caps.ts).
 */
import { readFileSync } from 'node:fs';
import { errorCode } from '../lib/error-code.ts';

/**
 * Where it cannot be read (not Linux, no /proc), this is assumed: the soft limit most systems
 * start a process with, and the lowest one a server is likely to meet, so caps derived from it
 * are safe when the real limit is higher (set --max-connections to use more).
 */
export const FALLBACK_DESCRIPTOR_LIMIT = 1024;

export interface DescriptorLimit {
  limit: number;
  /** Where it came from: `/proc/self/limits`, or `fallback` (with why). */
  source: string;
}

/** The soft "Max open files" of a /proc/PID/limits text; null when absent or "unlimited". */
export function parseOpenFilesLimit(text: string): number | null {
  const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(text);
  if (!match || match[1] === 'unlimited') return null;
  const limit = Number(match[1]);
  return limit > 0 ? limit : null;
}

export function readDescriptorLimit(path = '/proc/self/limits'): DescriptorLimit {
  try {
    const limit = parseOpenFilesLimit(readFileSync(path, 'latin1'));
    if (limit !== null) return { limit, source: path };
    return { limit: FALLBACK_DESCRIPTOR_LIMIT, source: `fallback (no soft "Max open files" in ${path})` };
  } catch (error) {
    return {
      limit: FALLBACK_DESCRIPTOR_LIMIT,
      source: `fallback (${path}: ${errorCode(error)})`,
    };
  }
}
