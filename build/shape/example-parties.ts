/**
 * Who the example dataset names: its made-up ids, and the one creator and two providers its
 * models, endpoints and arena entries refer to.
 */
import type { ModelCreator } from '../types.ts';

/** An id that is plainly no real one: zeros but a number. */
export function exampleId(n: number): string {
  return `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
}

export const EXAMPLE_CREATOR: ModelCreator = {
  id: exampleId(1),
  slug: 'example-creator',
  name: 'Example Creator',
  country: 'us',
};
export const EXAMPLE_PROVIDER = {
  id: exampleId(11),
  slug: 'example-provider',
  name: 'Example Provider',
  country: 'us',
};
export const EXAMPLE_PROVIDER_TWO = {
  id: exampleId(12),
  slug: 'example-provider-two',
  name: 'Example Provider Two',
  country: null,
};
