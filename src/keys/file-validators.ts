/**
 * The key file's validators, compiled on first use. The bundle replaces this module with the same
 * validators generated ahead as code (scripts/ahead-validators.ts), so the bundled server and keys
 * command compile nothing to read keys: compiling them cold is most of what ajv costs a start
 * (below).
 */
import type { KeyRecord } from '../state/key-record.ts';
import { ajvOnUse, compiledOnUse, TRUSTED_SCHEMAS } from '../shared/ajv.ts';
import { keyRecordSchema, keysHeaderSchema, wholeFileSchema, type KeysHeader } from './file-schemas.ts';

/** The schemas by the name each validator is generated under ahead: the bundle's module exports `${name}Validator`. */
export const KEY_FILE_SCHEMAS = { record: keyRecordSchema, header: keysHeaderSchema, wholeFile: wholeFileSchema };

/**
 * Compiled when first used, not when this module is imported: compiling the three at import was a
 * third of every `keys` command's CPU and some 75 ms of the server's start (a profile of `keys
 * list`: 77 of 215 ms), and format 1's is needed only to read a file of that format.
 */
const ajvOf = ajvOnUse(TRUSTED_SCHEMAS);
export const recordValidator = compiledOnUse<KeyRecord>(ajvOf, KEY_FILE_SCHEMAS.record);
export const wholeFileValidator = compiledOnUse<{ format: number; keys: KeyRecord[] }>(
  ajvOf,
  KEY_FILE_SCHEMAS.wholeFile,
);
export const headerValidator = compiledOnUse<KeysHeader>(ajvOf, KEY_FILE_SCHEMAS.header);
