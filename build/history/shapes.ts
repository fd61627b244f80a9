/** The list shapes the history follows, and what it records of a build in them. */
import { PROMPT_TYPES, type PromptType } from '../../src/shared/routes.ts';
import type { Item, ShapeChanges } from './diff.ts';

/** A list shape: `free`, or `pro PROMPT_TYPE` (the Pro list as Pro and Commercial keys read it). */
export type ShapeName = 'free' | `pro ${PromptType}`;
export const SHAPES: readonly ShapeName[] = ['free', ...PROMPT_TYPES.map((type) => `pro ${type}` as const)];

export type States = Record<ShapeName, Item[]>;

/** One build the history remembers. */
export interface BuildEntry {
  build_id: string;
  data_as_of: string;
  /** Null for the build the history starts at: every model it served is `added`. */
  previous_build_id: string | null;
}

/** What one build changed against the build before it, in each shape. */
export interface BuildRecord extends BuildEntry {
  shapes: Record<ShapeName, ShapeChanges>;
}
