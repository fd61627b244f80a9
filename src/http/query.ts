/**
 * Query validation per route, from the route table: ajv with type coercion and defaults, one
 * validator per distinct set of parameters (src/http/query-validators.ts). Every failure
 * is a 400 whose message names the field and, for enums, lists the valid values.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { HttpError } from './error.ts';
import { querySchema } from '../shared/query-schema.ts';
import { queryValidator } from './query-validators.ts';
import type { ParamSpec, Route } from '../shared/routes.ts';

export type QueryValues = Record<string, string | number | boolean>;

const DIGITS = /^\d+$/;

/** What a valid value looks like, for the 400 message. */
export function describeValid(name: string, spec: ParamSpec): string {
  if (spec.enum) return `Invalid ${name}. Valid options: ${spec.enum.join(', ')}`;
  if (spec.type === 'boolean') return `Invalid ${name}: must be true or false`;
  if (spec.type === 'integer')
    return `Invalid ${name}: must be an integer from ${spec.minimum ?? '-'} to ${spec.maximum ?? '-'}`;
  if (spec.format === 'date') return `Invalid ${name}: must be a calendar date written YYYY-MM-DD`;
  return `Invalid ${name}`;
}

function invalid(name: string, spec: ParamSpec, value: unknown): HttpError {
  const details: Record<string, unknown> = { field: name, value };
  if (spec.enum) details.valid = spec.enum;
  return new HttpError(400, describeValid(name, spec), { details: details });
}

function unknownParameter(route: Route, name: string): HttpError {
  const valid = Object.keys(route.query);
  const hint = valid.length ? `Valid parameters: ${valid.join(', ')}` : 'This route takes no query parameters';
  return new HttpError(400, `Unknown query parameter: ${name}. ${hint}`, { details: { field: name, valid } });
}

export class QueryValidator {
  /** Validators by route (routes with the same parameters share one: src/http/query-validators.ts). */
  private readonly byRoute = new Map<Route, ValidateFunction>();

  private validatorFor(route: Route): ValidateFunction {
    let validate = this.byRoute.get(route);
    if (validate) return validate;
    const schema = querySchema(route.query);
    this.byRoute.set(route, (validate = queryValidator(JSON.stringify(schema), schema)));
    return validate;
  }

  /** Find (from source, compile) a route's validator now, so no request pays for it. */
  warm(route: Route): void {
    this.validatorFor(route);
  }

  /** Validate a raw query string; returns the values with defaults filled in, or throws a 400. */
  parse(route: Route, rawQuery: string): QueryValues {
    const values: Record<string, unknown> = {};
    for (const [name, value] of rawQuery ? new URLSearchParams(rawQuery) : []) {
      // Own properties only: `constructor` or `__proto__` must not find Object.prototype's.
      const spec = Object.hasOwn(route.query, name) ? route.query[name] : undefined;
      if (!spec) throw unknownParameter(route, name);
      if (Object.hasOwn(values, name))
        throw new HttpError(400, `Invalid ${name}: given more than once`, { details: { field: name } });
      if (spec.type === 'integer' && !DIGITS.test(value)) throw invalid(name, spec, value);
      values[name] = value;
    }
    const validate = this.validatorFor(route);
    if (!validate(values)) {
      const error = validate.errors![0];
      const name = error.instancePath.slice(1);
      throw invalid(name, route.query[name], new URLSearchParams(rawQuery).get(name));
    }
    for (const [name, spec] of Object.entries(route.query)) {
      if (spec.defaultFrom && values[name] === undefined)
        values[name] = spec.defaultFrom.map[String(values[spec.defaultFrom.param])];
    }
    if (
      route.allowedCombinations &&
      !route.allowedCombinations.some((combo) => Object.entries(combo).every(([k, v]) => values[k] === v))
    ) {
      const describe = (combo: Readonly<Record<string, unknown>>) =>
        Object.entries(combo)
          .map(([k, v]) => `${k}=${String(v)}`)
          .join('&');
      const names = Object.keys(route.allowedCombinations[0]);
      throw new HttpError(
        400,
        `Invalid combination: ${describe(Object.fromEntries(names.map((n) => [n, values[n]])))}. Valid combinations: ` +
          `${route.allowedCombinations.map(describe).join(', ')}`,
        { details: { valid: route.allowedCombinations } },
      );
    }
    return values as QueryValues;
  }
}
