/**
 * Composite indices, computed from their definitions in `data/indices.json`: each component's
 * score is normalised onto 0..1 between its anchors, weighted, averaged and put on 0..100.
 * An index is null when any of its components is missing: a partial index would not be
 * comparable with the others.
 */
import { readPointer } from '../problems.ts';
import type { IndexComponent, IndexDefinitions, LanguageModel } from '../types.ts';
import { round } from './stats.ts';

const INDEX_DECIMALS = 1;
const NORMALIZED_DECIMALS = 4;

/** Where a score sits between the component's anchors, clamped to 0..1. */
export function normalize(value: number, { min, max }: Pick<IndexComponent, 'min' | 'max'>): number {
  return Math.min(1, Math.max(0, (value - min) / (max - min)));
}

export type ScoreReader = (pointer: string) => number | null;

export function scoreReader(model: LanguageModel): ScoreReader {
  return (pointer) => {
    const value = readPointer(model, pointer);
    return typeof value === 'number' ? value : null;
  };
}

export function compositeIndex(components: readonly IndexComponent[], readScore: ScoreReader): number | null {
  let weighted = 0;
  let weights = 0;
  for (const component of components) {
    const score = readScore(component.score);
    if (score === null) return null;
    weighted += component.weight * normalize(score, component);
    weights += component.weight;
  }
  return weights === 0 ? null : round((100 * weighted) / weights, INDEX_DECIMALS);
}

/** The components of a subset index: the intelligence index's own, with their weights and anchors. */
export function subsetComponents(defs: IndexDefinitions, subsetKey: string): IndexComponent[] {
  const subset = defs.intelligence_index.subsets.find((s) => s.key === subsetKey);
  if (!subset) return [];
  return defs.intelligence_index.components.filter((c) => subset.components.includes(c.id));
}

/** Every composite a model carries, keyed by its published name. */
export function computeIndices(defs: IndexDefinitions, readScore: ScoreReader): Record<string, number | null> {
  const out: Record<string, number | null> = {
    [defs.intelligence_index.key]: compositeIndex(defs.intelligence_index.components, readScore),
  };
  for (const subset of defs.intelligence_index.subsets)
    out[subset.key] = compositeIndex(subsetComponents(defs, subset.key), readScore);
  for (const index of defs.capability_indices.indices) out[index.key] = compositeIndex(index.components, readScore);
  out[defs.openness_index.key] = compositeIndex(defs.openness_index.components, readScore);
  return out;
}

/** A score normalised by the intelligence index component that reads it (e.g. GDPval Elo -> 0..1). */
export function normalizedScore(defs: IndexDefinitions, pointer: string, readScore: ScoreReader): number | null {
  const component = defs.intelligence_index.components.find((c) => c.score === pointer);
  const score = readScore(pointer);
  if (!component || score === null) return null;
  return round(normalize(score, component), NORMALIZED_DECIMALS);
}

/** `intelligence_index_version`: major.minor of the definition's version, as a number (4.3). */
export function publishedVersion(version: string): number {
  const [major, minor] = version.split('.');
  return Number(`${major}.${minor}`);
}
