/**
 * What a build changed, for the maintainer: the build's log ends with it, `--check` says what a
 * build would change, and the manifest keeps its counts (`changes`).
 */
import type { BuildChangeCounts } from '../../src/shared/manifest.ts';
import { DEFAULT_PROMPT_TYPE } from '../../src/shared/routes.ts';
import type { BuildRecord, ShapeName } from './history.ts';

/** The intelligence index, as the Free list names it. */
const INDEX_FIELD = 'evaluations.platform_intelligence_index';
/** The shape whose fields are counted by kind: the richest list, at the default prompt type. */
const COUNTED_SHAPE: ShapeName = `pro ${DEFAULT_PROMPT_TYPE}`;
/** How many of the largest index moves the summary names. */
const LARGEST_MOVES = 5;

export function changeCounts(record: BuildRecord): BuildChangeCounts {
  const changed = new Set(Object.values(record.shapes).flatMap((shape) => shape.changed.map((model) => model.id)));
  const byKind: Record<string, number> = {};
  for (const model of record.shapes[COUNTED_SHAPE].changed)
    for (const { field } of model.changes) byKind[field.split('.')[0]!] = (byKind[field.split('.')[0]!] ?? 0) + 1;
  const kinds = Object.keys(byKind).sort((a, b) => byKind[b]! - byKind[a]! || (a < b ? -1 : 1));
  return {
    previous_build_id: record.previous_build_id,
    added: record.shapes.free.added.length,
    removed: record.shapes.free.removed.length,
    changed: changed.size,
    fields_by_kind: Object.fromEntries(kinds.map((kind) => [kind, byKind[kind]!])),
  };
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${Number(n.toFixed(2))}`;

/** The summary's lines: counts, fields by kind, and the largest moves of the intelligence index. */
export function changeSummary(record: BuildRecord): string[] {
  const counts = changeCounts(record);
  if (record.previous_build_id === null)
    return [`history starts at this build: ${counts.added} models (no earlier build's lists to compare with)`];
  const lines = [
    `changes since ${record.previous_build_id}: ${counts.added} models added, ${counts.removed} removed, ` +
      `${counts.changed} changed`,
  ];
  const kinds = Object.entries(counts.fields_by_kind);
  if (kinds.length)
    lines.push(`  fields changed (Pro list, ${DEFAULT_PROMPT_TYPE}): ${kinds.map(([k, n]) => `${k} ${n}`).join(', ')}`);
  const moves = record.shapes.free.changed
    .flatMap(({ name, changes }) =>
      changes
        .filter((c) => c.field === INDEX_FIELD && typeof c.from === 'number' && typeof c.to === 'number')
        .map((c) => ({ name, from: c.from as number, to: c.to as number })),
    )
    .sort((a, b) => Math.abs(b.to - b.from) - Math.abs(a.to - a.from) || (a.name < b.name ? -1 : 1))
    .slice(0, LARGEST_MOVES);
  if (moves.length)
    lines.push(
      `  largest moves of the intelligence index: ${moves
        .map((m) => `${m.name} ${m.from} -> ${m.to} (${signed(m.to - m.from)})`)
        .join('; ')}`,
    );
  for (const [what, refs] of [
    ['added', record.shapes.free.added],
    ['removed', record.shapes.free.removed],
  ] as const)
    if (refs.length) lines.push(`  ${what}: ${refs.map((ref) => ref.slug).join(', ')}`);
  return lines;
}
