/**
 * Every answer the build produces is held to its route's response schema for its tier before it
 * is written (or, under `--check`, instead of being written): whole bodies, the widest answer a
 * route assembled at request time can give, and the page past the last. Failures are collected
 * and thrown together.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../src/shared/ajv.ts';
import { assembleMeasurements } from '../src/shared/measurements.ts';
import type { Route, Tier } from '../src/shared/routes.ts';
import type { EmptyPage, ProducedBody, ProducedFragments } from './shape/bodies.ts';
import type { BuildContext } from './shape/route-builder.ts';
import { firstKeptDay } from './shape/measurements.ts';
import { documentExamples } from './schemas/openapi.ts';
import { hasResponseSchema, responseSchema } from './schemas/responses.ts';

export type Produced = ProducedBody | EmptyPage | ProducedFragments;

export class BodySchemaError extends Error {
  constructor(readonly failures: string[]) {
    const bodies = failures.length === 1 ? 'body does' : 'bodies do';
    super(`${failures.length} response ${bodies} not match their route's schema:\n${failures.slice(0, 20).join('\n')}`);
    this.name = 'BodySchemaError';
  }
}

/**
 * Each route's validator for each tier, compiled once a process: a schema depends on its route
 * and tier alone, and compiling them took 1.7 of a small build's 4.2 s of CPU, again for each
 * build a process makes (`npm test`'s pipeline tests make 15).
 */
const validators = new Map<string, ValidateFunction>();
let ajv: ReturnType<typeof createAjv> | null = null;

function validatorOf(route: Route, tier: Tier): ValidateFunction {
  const id = `${route.id}.${tier}`;
  let validate = validators.get(id);
  if (!validate) validators.set(id, (validate = (ajv ??= createAjv()).compile(responseSchema(route, tier))));
  return validate;
}

export class BodyChecker {
  readonly failures: string[] = [];
  checked = 0;

  /** Hold one produced answer to its schema. */
  check(produced: Produced, ctx: Pick<BuildContext, 'asOf' | 'pageSize'>): void {
    const { route, tier, key } = produced;
    if ('body' in produced) {
      this.hold(route, tier, key, produced.body);
      // The document's examples are made up, not among the bodies checked here: each is held
      // to its route's schema for the tier it shows (the richest) all the same.
      if (route.id === 'openapi')
        for (const { route: shown, example } of documentExamples(produced.body))
          this.hold(shown, shown.tiers[shown.tiers.length - 1], `${key}: example of ${shown.id}`, example);
    } else if ('blob' in produced) {
      // The widest answer the server can assemble from these fragments.
      const { data, index } = produced.blob;
      this.hold(
        route,
        tier,
        key,
        JSON.parse(assembleMeasurements(index, data, firstKeptDay(ctx.asOf)).toString('utf8')),
      );
    } else this.hold(route, tier, key, JSON.parse(`${produced.before}${ctx.pageSize}${produced.after}`));
  }

  /** Throw the failures found so far, all of them, if there are any. */
  throwFailures(): void {
    if (this.failures.length > 0) throw new BodySchemaError(this.failures);
  }

  private hold(route: Route, tier: Tier, key: string, body: unknown): void {
    if (!hasResponseSchema(route)) throw new Error(`route ${route.id} is built but has no response schema`);
    const validate = validatorOf(route, tier);
    this.checked++;
    if (validate(body)) return;
    const detail = (validate.errors ?? [])
      .slice(0, 3)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ');
    this.failures.push(`${key}: ${detail}`);
  }
}
