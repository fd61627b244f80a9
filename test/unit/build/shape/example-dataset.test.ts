import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { recordAt } from '../../../../build/columns.ts';
import { critptProblemsSchema, indexDefinitionsSchema, languageModelsSchema, measurementRecordSchema, modelCreatorsSchema, providerEndpointsSchema, providersSchema } from '../../../../build/schemas/datasets.ts';
import { mediaSchema } from '../../../../build/schemas/media.ts';
import { EXAMPLE_AS_OF, exampleDataset } from '../../../../build/shape/example-dataset.ts';
import { createAjv } from '../../../../src/shared/ajv.ts';
import { MEDIA_ARENAS } from '../../../../src/shared/routes.ts';

const example = suite('exampleDataset');

example('should pass the dataset schemas data/ is held to, every arena included', () => {
  const dataset = exampleDataset();
  const ajv = createAjv();
  const check = (schema: object, value: unknown, what: string) => {
    const validate = ajv.compile(schema);
    assert.ok(validate(value), `${what}: ${JSON.stringify(validate.errors?.slice(0, 2))}`);
  };
  check(modelCreatorsSchema, dataset.creators, 'creators');
  check(providersSchema, dataset.providers, 'providers');
  check(languageModelsSchema, dataset.models, 'models');
  check(providerEndpointsSchema, dataset.endpoints, 'endpoints');
  check(indexDefinitionsSchema, dataset.indices, 'indices');
  check(critptProblemsSchema, dataset.critptProblems, 'critpt problems');
  const record = ajv.compile(measurementRecordSchema);
  for (const { columns } of dataset.series) for (let i = 0; i < columns.length; i++) assert.ok(record(recordAt(columns, i)), JSON.stringify(record.errors));
  for (const { arena, family } of MEDIA_ARENAS) check(mediaSchema(arena, family), dataset.media[arena], arena);
});

example('should be plainly made up: every name says Example, every id is zeros but a number, no record after its as-of', () => {
  const dataset = exampleDataset();
  const named = [...dataset.creators, ...dataset.providers, ...dataset.models, ...Object.values(dataset.media).flat()];
  for (const { name, slug, id } of named) {
    assert.match(name, /^Example /);
    assert.match(slug, /^example-/);
    assert.match(id, /^00000000-0000-4000-8000-\d{12}$/);
  }
  for (const { columns } of dataset.series) assert.ok(columns.time[columns.length - 1] <= EXAMPLE_AS_OF);
  assert.equal(exampleDataset(), dataset, 'the same every time');
});

example.run();
