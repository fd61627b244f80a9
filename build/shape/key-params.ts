/**
 * The values of a route's key parameters a build writes a body for: every combination the route
 * allows, with and without each server option that changes a body.
 */
import { keyParamValues, type Route } from '../../src/shared/routes.ts';
import type { Params } from './route-builder.ts';

/** Every combination of the route's key parameter values, `page` left out (the data decides it). */
export function keyParamCombinations(route: Route): Params[] {
  let combos: Params[] = [{}];
  for (const name of route.keyParams) {
    if (name === 'page') continue;
    const values = keyParamValues(route.query[name]);
    combos = combos.flatMap((combo) => values.map((value) => ({ ...combo, [name]: value })));
  }
  const allowed = route.allowedCombinations;
  if (allowed)
    combos = combos.filter((combo) => allowed.some((a) => Object.entries(a).every(([k, v]) => combo[k] === v)));
  for (const option of route.optionParams ?? [])
    combos = combos.flatMap((combo) => [combo, { ...combo, [option]: true }]);
  return combos;
}
