/**
 * Our own OpenAPI document as the tools that read it see it: the rules `redocly lint` and
 * `@apidevtools/swagger-parser` enforce that it once broke, and the named components a generated
 * client imports (named as the original service names the same shapes).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openApiDocument } from '../../../build/schemas/openapi.ts';
import { MEDIA_ARENAS, ROUTES } from '../../../src/shared/routes.ts';
import { ORIGINAL_OPENAPI, originalDocument } from '../../helpers/contract.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const doc = openApiDocument() as Record<string, any>;
const REF = '#/components/schemas/';

/** Every value below `value`, with the path that leads to it. */
function* walk(value: unknown, path: string[] = []): Generator<{ value: unknown; path: string[] }> {
  yield { value, path };
  if (value !== null && typeof value === 'object') for (const [key, part] of Object.entries(value)) yield* walk(part, [...path, key]);
}

/** The schema a `$ref` into the components names. */
function resolved(schema: Record<string, unknown>): Record<string, unknown> {
  const ref = schema.$ref;
  return typeof ref === 'string' ? doc.components.schemas[ref.slice(REF.length)] : schema;
}

const rules = suite('the OpenAPI document, as validators read it');

rules('should give media types only the fields OpenAPI 3.1 allows them (schema, example, examples, encoding)', () => {
  let mediaTypes = 0;
  for (const { value, path } of walk(doc.paths)) {
    if (path.at(-1) !== 'content' || path.at(-3) === 'properties') continue;
    for (const [type, media] of Object.entries(value as Record<string, object>)) {
      mediaTypes++;
      const extra = Object.keys(media).filter((key) => !['schema', 'example', 'examples', 'encoding'].includes(key));
      assert.equal(extra, [], `${path.join('.')}.${type}`);
    }
  }
  assert.ok(mediaTypes > ROUTES.length, `${mediaTypes} media types checked`);
});

rules('should give the license a url or an SPDX identifier, not both', () => {
  const { license } = doc.info;
  assert.type(license.name, 'string');
  assert.is(('url' in license ? 1 : 0) + ('identifier' in license ? 1 : 0), 1, JSON.stringify(license));
  if (license.url) assert.ok(URL.canParse(license.url), `an absolute URL: ${license.url}`);
});

rules('should resolve every reference, and use every named schema', () => {
  const used = new Set<string>();
  for (const { value, path } of walk(doc)) {
    if (path.at(-1) !== '$ref') continue;
    const ref = value as string;
    const [, section, name] = /^#\/components\/(schemas|headers)\/(.+)$/.exec(ref) ?? [];
    assert.ok(section && doc.components[section][name], `${path.join('.')}: ${ref}`);
    if (section === 'schemas') used.add(name);
  }
  assert.equal(Object.keys(doc.components.schemas).filter((name) => !used.has(name)), [], 'components nothing refers to');
});

const named = suite('the named shapes of the OpenAPI document');

named('should name the language model of each tier, the provider, the pagination, the series point, the measurement, every arena entry and the error', () => {
  const names = Object.keys(doc.components.schemas);
  for (const name of ['FreeModelData', 'ModelDataExternalList', 'ModelDataExternalPro', 'ModelDataExternal', 'ModelProviderDataExternal', 'ProviderDataExternalList', 'ProviderDataExternalDetail', 'PaginationMeta', 'PerformanceSnapshot', 'Measurement', 'Error'])
    assert.ok(names.includes(name), name);
  const arenaEntries = names.filter((name) => /Arena|SpeechTo|TextToSpeech/.test(name) && /Result/.test(name));
  // A Free and a Pro entry for each of the six families.
  assert.is(arenaEntries.length, 2 * new Set(MEDIA_ARENAS.map((a) => a.family)).size, arenaEntries.join(' '));
});

named('should refer to a named shape wherever an answer holds one, never repeat it inline', () => {
  const shapes = new Map(Object.entries(doc.components.schemas).map(([name, schema]) => [JSON.stringify({ ...(schema as object), title: undefined }), name]));
  for (const { value, path } of walk(doc.paths)) {
    if (value === null || typeof value !== 'object' || !('properties' in value)) continue;
    const name = shapes.get(JSON.stringify({ ...value, title: undefined }));
    assert.is(name, undefined, `${path.join('.')} repeats ${name} inline`);
  }
});

named('should give one schema for answers that differ only in the tier they name', () => {
  const free = doc.paths['/api/v2/language/models/free'].get.responses['200'].content['application/json'].schema;
  assert.is(free.oneOf, undefined);
  assert.equal(free.properties.tier, { enum: ['free', 'pro', 'commercial'] });
  assert.equal(resolved(free.properties.data.items).title, 'FreeModelData');
  // Pro and Commercial details differ (Commercial lists the providers): two schemas, one per shape.
  const detail = doc.paths['/api/v2/language/models/{slug}'].get.responses['200'].content['application/json'].schema;
  assert.equal(detail.oneOf.map((s: { properties: { tier: unknown } }) => s.properties.tier), [{ const: 'pro' }, { const: 'commercial' }]);
});

const original = originalDocument();
const sameNames = suite("the original's names");
if (original) {
  sameNames("should name a shape as the original names it only where ours has every field the original's has", () => {
    const shared = Object.keys(doc.components.schemas).filter((name) => original.components.schemas[name]);
    assert.ok(shared.length >= 40, `${shared.length} names shared with the original: ${shared.join(' ')}`);
    for (const name of shared) {
      // Ours may add fields (the spec adds some indices); a field of theirs missing would make the name a lie.
      const ours = new Set(Object.keys(doc.components.schemas[name].properties ?? {}));
      const theirs = Object.keys(original.components.schemas[name].properties ?? {});
      assert.ok(theirs.length > 0, name);
      assert.equal(theirs.filter((field) => !ours.has(field)), [], name);
    }
  });
} else {
  sameNames.skip(`should name shapes as the original does (skipped: ${ORIGINAL_OPENAPI} not found)`, () => {});
  console.log(`skipped: the original OpenAPI document is not at ${ORIGINAL_OPENAPI}`);
}

rules.run();
named.run();
sameNames.run();
