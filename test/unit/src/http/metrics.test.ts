import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Metrics } from '../../../../src/http/metrics.ts';

const metrics = suite('Metrics');

const sources = {
  snapshot: () => ({ buildId: 'b1', builtAt: 0 }),
  integrity: () => ({ corruptParts: 0, checkedRatio: 1 }),
  cache: () => ({ hits: 0, misses: 0, bytes: 0 }),
  now: () => 1000,
};

/** The value of one line of the exposition, by its name and labels as written. */
const value = (text: string, series: string) => Number(text.split('\n').find((line) => line.startsWith(`${series} `))?.split(' ')[1]);

metrics('should count each route and status in a series of its own, and time each route over all its statuses', () => {
  const m = new Metrics(sources);
  m.observe('language.models', 200, 0.003);
  m.observe('language.models', 200, 0.004);
  m.observe('language.models', 404, 0.2);
  m.observe('unmatched', 404, 0.0004);
  const text = m.render();
  assert.is(value(text, 'bda_http_requests_total{route="language.models",status="200"}'), 2);
  assert.is(value(text, 'bda_http_requests_total{route="language.models",status="404"}'), 1);
  assert.is(value(text, 'bda_http_requests_total{route="unmatched",status="404"}'), 1);
  assert.is(m.requests.get({ route: 'language.models', status: '200' }), 2, 'the series the counter finds by its labels');
  assert.is(value(text, 'bda_http_request_duration_seconds_count{route="language.models"}'), 3);
  assert.is(value(text, 'bda_http_request_duration_seconds_bucket{route="language.models",le="0.005"}'), 2);
  assert.is(value(text, 'bda_http_request_duration_seconds_bucket{route="language.models",le="0.25"}'), 3);
  assert.is(value(text, 'bda_http_request_duration_seconds_bucket{route="unmatched",le="0.0005"}'), 1);
  assert.ok(Math.abs(value(text, 'bda_http_request_duration_seconds_sum{route="language.models"}') - 0.207) < 1e-9);
  assert.is(text.split('\n').filter((line) => line.startsWith('bda_http_requests_total{')).length, 3, 'no other series');
});

metrics.run();
