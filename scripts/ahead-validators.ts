/**
 * Validators generated ahead for the bundle (scripts/bundle.ts): ajv's standalone code for the
 * schemas a module names, put in that module's place, so the bundled programs run ajv's compiler
 * for none of them when they start. The ajv options are run time's (src/shared/ajv.ts's
 * createAjv with TRUSTED_SCHEMAS), so the code is the code ajv compiles at run time, only
 * compiled earlier (test/unit/scripts/ahead-validators.test.ts holds the two to the same answers).
 * Compiling cold is what costs: the key file's record and header took 77 of the 215 ms of
 * `keys list` (a CPU profile of dist/keys.mjs), where the same compile takes some 17 ms warm.
 */
import { _ } from 'ajv/dist/compile/codegen/index.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'esbuild';
import { dirname, join } from 'node:path';
import { KEY_FILE_SCHEMAS } from '../src/keys/file-validators.ts';
import { createAjv, TRUSTED_SCHEMAS } from '../src/shared/ajv.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** Each module replaced, with its schemas by name: the module's replacement exports `${name}Validator()` for each. */
const AHEAD: { module: string; schemas: Record<string, object> }[] = [
  { module: 'src/keys/file-validators.ts', schemas: KEY_FILE_SCHEMAS },
];

/** Where the generated code takes the string formats from. */
const STRING_FORMATS_MODULE = join(ROOT, 'src/shared/string-formats.ts');

// A CommonJS module: its export is the function, which carries itself as `default` too.
const standaloneCode = standaloneModule.default;

/**
 * An ES module exporting `${name}Validator()` for each schema, each answering the validator ajv
 * would compile for it at run time; it imports the string formats from `formatsModule`.
 */
export function aheadValidatorsCode(schemas: Record<string, object>, formatsModule = STRING_FORMATS_MODULE): string {
  const ajv = createAjv({ ...TRUSTED_SCHEMAS, code: { source: true, esm: true, formats: _`STRING_FORMATS` } });
  for (const [name, schema] of Object.entries(schemas)) ajv.addSchema(schema, name);
  const names = Object.keys(schemas);
  const code = standaloneCode(ajv, Object.fromEntries(names.map((name) => [name, name])));
  const accessors = names.map((name) => `export const ${name}Validator = () => ${name};`).join('\n');
  return `import { STRING_FORMATS } from ${JSON.stringify(formatsModule)};\n${code}\n${accessors}\n`;
}

/** The esbuild plugin that loads each module of AHEAD as its generated validators. */
export function aheadValidators(): Plugin {
  return {
    name: 'ahead-validators',
    setup(build) {
      for (const { module, schemas } of AHEAD) {
        const path = join(ROOT, module);
        build.onLoad({ filter: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }, () => ({
          contents: aheadValidatorsCode(schemas),
          loader: 'js',
          resolveDir: dirname(path),
        }));
      }
    },
  };
}
