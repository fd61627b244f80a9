/**
 * Bounds on a JSON text's structure, checked by one linear scan of its bytes before it is
 * parsed: JSON.parse and schema checks of millions of nested arrays or empty objects hold the
 * event loop for seconds, and a 400 costs the sender no quota, so it could be repeated at will.
 */
import { HttpError } from './error.ts';

export interface JsonLimits {
  /** Deepest nesting of objects and arrays. */
  depth: number;
  /** Most values in containers (elements and members, counted by their separators), in all. */
  values: number;
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Throw a 400 naming the limit when the text nests deeper or holds more values than allowed. */
export function checkJsonLimits(text: Buffer, limits: JsonLimits): void {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
      continue;
    }
    if (byte === QUOTE) inString = true;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++depth > limits.depth)
        throw new HttpError(400, `Invalid request body: nested deeper than ${limits.depth} levels`, {
          details: { field: 'body', limit: limits.depth },
        });
      if (++values > limits.values) throw tooMany(limits);
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) depth--;
    else if (byte === COMMA && ++values > limits.values) throw tooMany(limits);
  }
}

function tooMany(limits: JsonLimits): HttpError {
  return new HttpError(400, `Invalid request body: more than ${limits.values} values`, {
    details: { field: 'body', limit: limits.values },
  });
}
