/** What a planned release is, before it becomes a model record: shared by the model and evaluation generators. */

export interface Variant {
  /** Appended to the release name; empty for the base tier. */
  label: string;
  /** Added to capability: bigger variants score higher. */
  effect: number;
  /** Billions of parameters (open weights; closed tiers when disclosed). */
  total: number;
  active: number;
}

export type FamilyKind = 'general' | 'coder' | 'vision';

export interface Family {
  name: string;
  kind: FamilyKind;
  major: number;
  minor: number;
}

export interface ModelSeed {
  family: Family;
  version: string;
  variant: Variant;
  reasoning: boolean;
  /** Both modes of one variant were released: the names say which is which. */
  twoModes: boolean;
  open: boolean;
  atMs: number;
}
