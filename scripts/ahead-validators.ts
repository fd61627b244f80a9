/**
 * Validators generated ahead for the bundle (scripts/bundle.ts): ajv's standalone code for the
 * schemas of a module, put in that module's place, so the bundled programs run ajv's compiler for
 * none of them. Each module's ajv options are its run time's, so the code is the code ajv compiles
 * at run time, only compiled earlier (test/unit/scripts/ahead-validators.test.ts holds the two to
 * the same answers). Compiling cold is what costs: the key file's record and header took 77 of the
 * 215 ms of `keys list` (a CPU profile of dist/keys.mjs), where the same compile takes some 17 ms
 * once ajv's code is warm.
 */
import type { Options } from 'ajv/dist/2020.js';
import { _ } from 'ajv/dist/compile/codegen/index.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import type { Plugin } from 'esbuild';
import { dirname, join } from 'node:path';
import { QUERY_AJV_OPTIONS, routeQuerySchemas } from '../src/http/query-validators.ts';
import { KEY_FILE_SCHEMAS } from '../src/keys/file-validators.ts';
import { createAjv, TRUSTED_SCHEMAS } from '../src/shared/ajv.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** Where the generated code takes the string formats from. */
const STRING_FORMATS_MODULE = join(ROOT, 'src/shared/string-formats.ts');

// A CommonJS module: its export is the function, which carries itself as `default` too.
const standaloneCode = standaloneModule.default;

/** A module replaced: its schemas by the name each validator is exported under, and its own exports made of those. */
interface AheadModule {
  options: Options;
  schemas: () => Record<string, object>;
  exports: (named: Record<string, object>) => string;
}

/** The modules replaced, by their path in the repository; each replacement exports what the module does. */
const AHEAD: Record<string, AheadModule> = {
  'src/keys/file-validators.ts': {
    options: TRUSTED_SCHEMAS,
    schemas: () => KEY_FILE_SCHEMAS,
    exports: (named) =>
      Object.keys(named)
        .map((name) => `export const ${name}Validator = () => ${name};`)
        .join('\n'),
  },
  'src/http/query-validators.ts': {
    options: QUERY_AJV_OPTIONS,
    schemas: () => Object.fromEntries([...routeQuerySchemas().values()].map((schema, i) => [`query${i}`, schema])),
    // Found by the schema's text, as src/http/query.ts asks for them.
    exports: (named) => {
      const entries = Object.entries(named)
        .map(([name, schema]) => `[${JSON.stringify(JSON.stringify(schema))}, ${name}]`)
        .join(',\n  ');
      return (
        `const BY_TEXT = new Map([\n  ${entries},\n]);\n` +
        'export function queryValidator(schemaText) {\n' +
        '  const validate = BY_TEXT.get(schemaText);\n' +
        '  if (validate === undefined) throw new Error(`no query validator was generated for ${schemaText}`);\n' +
        '  return validate;\n' +
        '}'
      );
    },
  },
};

/** The modules the bundle replaces, by their path in the repository. */
export const AHEAD_MODULES = Object.keys(AHEAD);

/**
 * The replacement of a module of AHEAD_MODULES: an ES module with ajv's standalone code for its
 * schemas and the module's exports, importing the string formats from `formatsModule`.
 */
export function aheadModuleCode(module: string, formatsModule = STRING_FORMATS_MODULE): string {
  const { options, schemas, exports } = AHEAD[module];
  const ajv = createAjv({ ...options, code: { source: true, esm: true, formats: _`STRING_FORMATS` } });
  const named = schemas();
  for (const [name, schema] of Object.entries(named)) ajv.addSchema(schema, name);
  const names = Object.keys(named);
  const code = standaloneCode(ajv, Object.fromEntries(names.map((name) => [name, name])));
  return `import { STRING_FORMATS } from ${JSON.stringify(formatsModule)};\n${code}\n${exports(named)}\n`;
}

/** The esbuild plugin that loads each module of AHEAD as its generated validators. */
export function aheadValidators(): Plugin {
  return {
    name: 'ahead-validators',
    setup(build) {
      for (const module of AHEAD_MODULES) {
        const path = join(ROOT, module);
        build.onLoad({ filter: new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`) }, () => ({
          contents: aheadModuleCode(module),
          loader: 'js',
          resolveDir: dirname(path),
        }));
      }
    },
  };
}
