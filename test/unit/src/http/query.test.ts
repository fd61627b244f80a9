import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/error.ts';
import { QueryValidator } from '../../../../src/http/query.ts';
import { routeById } from '../../../../src/shared/routes.ts';

const validator = new QueryValidator();

function rejection(routeId: string, query: string): HttpError {
  try {
    validator.parse(routeById(routeId), query);
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error(`expected ${query} to be rejected`);
}

const parsing = suite('QueryValidator.parse');

parsing('should fill defaults', () => {
  assert.equal(validator.parse(routeById('language.models'), ''), { prompt_type: 'long', page: 1 });
});

parsing('should coerce integers and booleans', () => {
  assert.equal(validator.parse(routeById('language.models'), 'page=3&prompt_type=100k'), { page: 3, prompt_type: '100k' });
  assert.equal(validator.parse(routeById('media.text-to-image'), 'include_categories=true'), { include_categories: true });
});

parsing('should derive interval from window when omitted', () => {
  const route = routeById('language.model.performance');
  assert.is(validator.parse(route, 'window=7d').interval, 'daily');
  assert.is(validator.parse(route, 'window=30d').interval, 'daily');
  assert.is(validator.parse(route, '').interval, 'weekly');
  assert.is(validator.parse(route, 'window=7d&interval=monthly').interval, 'monthly');
});

parsing('should list the valid prompt types in the original wording', () => {
  const error = rejection('language.models', 'prompt_type=short');
  assert.is(error.status, 400);
  assert.is(error.message, 'Invalid prompt_type. Valid options: medium, long, 100k, vision_single_image, medium_coding, medium_parallel');
});

parsing('should name the field of an out-of-range or non-integer page', () => {
  for (const page of ['0', '10001', '1.5', '0x10', '1e3', '-1', '', 'abc']) {
    const error = rejection('language.models', `page=${page}`);
    assert.is(error.status, 400, page);
    assert.match(error.message, /^Invalid page: must be an integer from 1 to 10000$/, page);
  }
});

parsing('should reject an unknown parameter, naming it and the valid ones', () => {
  const error = rejection('language.models', 'pgae=2');
  assert.match(error.message, /Unknown query parameter: pgae\. Valid parameters: prompt_type, page/);
  assert.match(rejection('media.text-to-speech.free', 'include_categories=true').message, /takes no query parameters/);
});

parsing('should treat names of Object.prototype members as unknown parameters', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    assert.match(rejection('language.models', `${name}=1`).message, new RegExp(`Unknown query parameter: ${name}`));
  }
});

parsing('should accept and check, but not key on, the category flag of a /free arena route', () => {
  assert.equal(validator.parse(routeById('media.text-to-image.free'), 'include_categories=true'), { include_categories: true });
  assert.match(rejection('media.text-to-image.free', 'include_categories=yes').message, /must be true or false/);
  assert.equal(routeById('media.text-to-image.free').keyParams, []);
});

parsing('should refuse a legacy prompt option that was never measured, listing the valid ones', () => {
  assert.equal(validator.parse(routeById('legacy.llms.models'), ''), { prompt_length: 'medium', parallel_queries: 1 });
  assert.equal(validator.parse(routeById('legacy.llms.models'), 'parallel_queries=10'), { prompt_length: 'medium', parallel_queries: 10 });
  const error = rejection('legacy.llms.models', 'prompt_length=long&parallel_queries=10');
  assert.is(error.message, 'Invalid combination: prompt_length=long&parallel_queries=10. Valid combinations: prompt_length=medium&parallel_queries=1, prompt_length=long&parallel_queries=1, prompt_length=100k&parallel_queries=1, prompt_length=medium&parallel_queries=10');
});

parsing('should reject a parameter given twice', () => {
  assert.match(rejection('language.models', 'page=1&page=2').message, /page: given more than once/);
});

parsing('should accept only true or false for booleans', () => {
  for (const value of ['1', 'yes', 'TRUE', '']) assert.is(rejection('media.music.instrumental', `include_genres=${value}`).message, 'Invalid include_genres: must be true or false');
});

parsing('should reject impossible dates', () => {
  assert.match(rejection('language.provider.measurements', 'start_date=2026-02-30').message, /Invalid start_date/);
  assert.equal(validator.parse(routeById('language.provider.measurements'), 'start_date=2026-02-28').start_date, '2026-02-28');
});

parsing.run();
