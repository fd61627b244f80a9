/**
 * The checks of the index definitions (indices.json) that its schema cannot make: each component
 * reads a numeric score, components are unique and bounded, the intelligence index's components
 * carry token counts and tasks, and every index the API publishes is defined, and no other.
 */
import {
  HEADLINE_INDICES,
  LEGACY_EVALUATIONS,
  OMNISCIENCE_DOMAINS,
  OMNISCIENCE_METRICS,
  OPENNESS_COMPONENTS,
  RAW_EVALUATIONS,
  TOKEN_COUNT_EVALUATIONS,
} from '../fields.ts';
import { pointerOf, type Problem } from '../problems.ts';
import type { IndexDefinitions } from '../types.ts';

/** Every pointer an index component may read: the numeric scores of a language model. */
export const SCORE_POINTERS: ReadonlySet<string> = new Set([
  ...RAW_EVALUATIONS.map((k) => pointerOf('evaluations', k)),
  ...LEGACY_EVALUATIONS.map((k) => pointerOf('evaluations', k)),
  ...OMNISCIENCE_DOMAINS.flatMap((d) => OMNISCIENCE_METRICS.map((m) => pointerOf('omniscience_breakdown', d, m))),
  ...OPENNESS_COMPONENTS.map((c) => pointerOf('openness', c)),
]);

/** Adds to `problems` what is wrong with the index definitions read from `path`. */
export function checkIndexDefinitions(path: string, defs: IndexDefinitions, problems: Problem[]): void {
  const report = (pointer: string, message: string) => problems.push({ file: path, pointer, message });
  const checkComponents = (base: (string | number)[], components: IndexDefinitions['openness_index']['components']) => {
    const ids = new Set<string>();
    components.forEach((c, i) => {
      if (!SCORE_POINTERS.has(c.score))
        report(pointerOf(...base, i, 'score'), `${c.score} does not name a numeric score of a language model`);
      if (!(c.max > c.min)) report(pointerOf(...base, i, 'max'), 'max must be greater than min');
      if (ids.has(c.id)) report(pointerOf(...base, i, 'id'), `duplicate component id ${c.id}`);
      ids.add(c.id);
    });
  };
  const intelligence = defs.intelligence_index;
  checkComponents(['intelligence_index', 'components'], intelligence.components);
  const componentIds = new Set(intelligence.components.map((c) => c.id));
  intelligence.components.forEach((c, i) => {
    // The index's token counts are the sum of its components' evaluation token counts.
    if (!(TOKEN_COUNT_EVALUATIONS as readonly string[]).includes(c.id)) {
      report(
        pointerOf('intelligence_index', 'components', i, 'id'),
        `must be an evaluation_token_counts key (${TOKEN_COUNT_EVALUATIONS.join(', ')})`,
      );
    }
    if (c.tasks === undefined)
      report(
        pointerOf('intelligence_index', 'components', i, 'tasks'),
        'intelligence index components need a task count (for cost per task)',
      );
  });
  intelligence.subsets.forEach((subset, s) =>
    subset.components.forEach((id, i) => {
      if (!componentIds.has(id))
        report(
          pointerOf('intelligence_index', 'subsets', s, 'components', i),
          `${id} is not a component of the intelligence index`,
        );
    }),
  );
  defs.capability_indices.indices.forEach((index, i) =>
    checkComponents(['capability_indices', 'indices', i, 'components'], index.components),
  );
  checkComponents(['openness_index', 'components'], defs.openness_index.components);
  if (defs.math_index) checkComponents(['math_index', 'components'], defs.math_index.components);

  const defined = [
    intelligence.key,
    ...intelligence.subsets.map((s) => s.key),
    ...defs.capability_indices.indices.map((i) => i.key),
  ];
  for (const key of HEADLINE_INDICES) if (!defined.includes(key)) report('', `no definition for ${key}`);
  for (const key of defined)
    if (!(HEADLINE_INDICES as readonly string[]).includes(key))
      report('', `${key} is not an index the API publishes (${HEADLINE_INDICES.join(', ')})`);
  if (defs.openness_index.key !== 'platform_openness_index')
    report(pointerOf('openness_index', 'key'), 'must be platform_openness_index');
}
