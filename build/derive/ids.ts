/** Stable identifiers for things the data does not name itself. */
import { sha256 } from '../../src/shared/sha256.ts';

/**
 * A UUID (version 8, RFC 9562) made from a text: the same text always gives the same id, so
 * derived records (a measurement without an id, an imported provider) keep it across runs.
 */
export function uuidFrom(text: string): string {
  const hex = sha256(text, 'hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  const version = `8${hex.slice(13, 16)}`;
  const clockSeq = `${variant}${hex.slice(17, 20)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${version}-${clockSeq}-${hex.slice(20, 32)}`;
}
