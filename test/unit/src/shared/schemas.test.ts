import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createAjv } from '../../../../src/shared/ajv.ts';
import { critptRequestSchema } from '../../../../src/shared/critpt-schema.ts';
import { keysHeaderSchema, keyRecordSchema, wholeFileSchema } from '../../../../src/keys/file-format.ts';
import { querySchema } from '../../../../src/shared/query-schema.ts';
import { ROUTES } from '../../../../src/shared/routes.ts';

// The server compiles these without checking them against the meta-schema (start-up time);
// this is where they are checked.
const schemas = suite('the server\'s own JSON Schemas');

/** Errors of a schema against the 2020-12 meta-schema, as text. */
function metaSchemaErrors(schema: Record<string, unknown>): string {
  const ajv = createAjv();
  return ajv.validateSchema(schema) ? '' : ajv.errorsText(ajv.errors);
}

schemas('should be valid JSON Schema 2020-12: the keys file\'s parts, the CritPt request and every route\'s query', () => {
  const all: [string, Record<string, unknown>][] = [
    ['keys file record', keyRecordSchema],
    ['keys file header', keysHeaderSchema],
    ['keys file of format 1', wholeFileSchema],
    ['CritPt request', critptRequestSchema],
    ...ROUTES.map((r): [string, Record<string, unknown>] => [`query of ${r.id}`, querySchema(r.query)]),
  ];
  for (const [name, schema] of all) {
    assert.is(metaSchemaErrors(schema), '', name);
    createAjv().compile(schema); // strict mode: unknown keywords and formats throw
  }
});

schemas('should catch a schema the meta-schema rejects', () => {
  assert.match(metaSchemaErrors({ type: 'strnig' }), /type/);
});

schemas.run();
