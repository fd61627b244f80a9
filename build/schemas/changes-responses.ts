/**
 * The answers made of the history of builds: `GET /api/v2/changes`, each build with what it
 * changed in the key's list (a field's `from` and `to` are whatever the list item holds there: a
 * number, a string, a boolean, an array, an object that came or went, or null), and
 * `GET /api/v2/language/models/{slug}/history`, a model as each build that changed it listed it.
 */
import { BUILD_ID_PATTERN } from '../../src/shared/build-id.ts';
import { closed, named, nullableString, string, uuid, type Schema } from './json-schema.ts';
import { proLanguageModel } from './language-responses.ts';

const buildId = { type: 'string', pattern: BUILD_ID_PATTERN };

export const modelRef = named('ModelRef', closed({ id: uuid, slug: string, name: string }));

export const fieldChange = named(
  'FieldChange',
  closed({
    field: { type: 'string', description: "dotted path of the field in the tier's list item" },
    from: {},
    to: {},
  }),
);

export const buildChanges = named(
  'BuildChanges',
  closed({
    build_id: buildId,
    data_as_of: { type: 'string', format: 'date-time' },
    previous_build_id: { ...nullableString, description: 'null where the history starts (every model added)' },
    added: { type: 'array', items: modelRef },
    removed: { type: 'array', items: modelRef },
    changed: {
      type: 'array',
      items: named(
        'ChangedModel',
        closed({ id: uuid, slug: string, name: string, changes: { type: 'array', items: fieldChange, minItems: 1 } }),
      ),
    },
  }),
);

export const changesData: Schema = { type: 'array', items: buildChanges };

export const modelHistory = named(
  'ModelHistory',
  closed({
    id: uuid,
    slug: string,
    name: string,
    points: {
      type: 'array',
      items: named(
        'HistoryPoint',
        closed({ build_id: buildId, data_as_of: { type: 'string', format: 'date-time' }, model: proLanguageModel }),
      ),
    },
  }),
);
