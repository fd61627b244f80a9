/**
 * A build's id: its time (the data's, or SOURCE_DATE_EPOCH) and the start of the digest of its
 * inputs, `20261125T180000Z-1a2b3c4d`; `-2`, `-3` ... after it for a forced rebuild into a folder
 * that holds that id already (build/pack/snapshot-dir.ts, newBuildId). The build names its
 * folders so; the answers that name builds (the changes, a model's history) are held to the pattern.
 */

/** The id of a build made at `builtAt` from inputs whose digest is `inputDigest` (hex). */
export function buildIdOf(builtAt: Date, inputDigest: string): string {
  return `${builtAt
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')}-${inputDigest.slice(0, 8)}`;
}

/** Every id buildIdOf and newBuildId make, as a JSON Schema pattern. */
export const BUILD_ID_PATTERN = '^\\d{8}T\\d{6}Z-[0-9a-f]{8}(-\\d+)?$';
