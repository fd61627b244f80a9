import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/error.ts';
import { nearestRoute } from '../../../../src/http/nearest-route.ts';
import { Router } from '../../../../src/http/router.ts';
import type { Route } from '../../../../src/shared/routes.ts';

const nearest = suite('nearestRoute');

nearest('should drop a trailing slash and mend the case', () => {
  assert.is(nearestRoute('/api/v2/language/models/'), '/api/v2/language/models');
  assert.is(nearestRoute('/api/v2/LANGUAGE/providers'), '/api/v2/language/providers');
});

nearest('should mend one segment up to two letters off, keeping the slug', () => {
  assert.is(nearestRoute('/api/v2/media/text-to-imag/models'), '/api/v2/media/text-to-image/models');
  assert.is(nearestRoute('/api/v2/language/models/some-model/performanse'), '/api/v2/language/models/some-model/performance');
});

nearest('should name nothing for a path far from every route, or outside /api/v2', () => {
  assert.is(nearestRoute('/api/v2/weather/today'), null);
  assert.is(nearestRoute('/api/v2/media/text-to-video-and-more/models'), null);
  assert.is(nearestRoute('/healthz/'), null);
});

nearest('should mend a typo only where no other segment differs, even by case', () => {
  assert.is(nearestRoute('/api/v2/language/modles'), '/api/v2/language/models');
  assert.is(nearestRoute('/API/v2/language/modles'), null);
  assert.is(nearestRoute('/api/v2/languag/modles'), null);
});

/** CPU microseconds per call of `fn`, the median of interleaved rounds (other processes share the machine). */
function cpuPerCall(fns: (() => void)[], calls: number, rounds = 7): number[] {
  const samples = fns.map(() => [] as number[]);
  for (let round = 0; round < rounds; round++) {
    fns.forEach((fn, i) => {
      const start = process.cpuUsage();
      for (let n = 0; n < calls; n++) fn();
      const { user, system } = process.cpuUsage(start);
      samples[i].push((user + system) / calls);
    });
  }
  return samples.map((s) => s.sort((a, b) => a - b)[Math.floor(s.length / 2)]);
}

nearest('should cost a hostile 404 about what an ordinary one costs', () => {
  const router = new Router();
  const notFound = (path: string) => () => {
    try {
      router.match('GET', path);
      assert.unreachable(`${path.slice(0, 40)} matched`);
    } catch (error) {
      assert.instance(error, HttpError);
      assert.is((error as HttpError).status, 404);
    }
  };
  const ordinary = notFound('/api/v2/weather/today');
  const hostile = [
    notFound(`/api/v2/media/${'c'.repeat(8100)}/models`), // one long segment where a short one is expected
    notFound(`/api/v2${'/'.repeat(8100)}x`), // thousands of empty segments
    notFound(`/api/v2/language/models/${'m/'.repeat(4000)}x`), // thousands of segments
    notFound(`/api/v2/media/${'text-to-imag'.repeat(600)}/models`), // long, and near a template segment
  ];
  const [base, ...costs] = cpuPerCall([ordinary, ...hostile], 50);
  // Before the bound the first cost 700 times the ordinary one, the second 1000 times.
  for (const [i, cost] of costs.entries()) assert.ok(cost < base * 6, `hostile 404 #${i}: ${cost.toFixed(1)} µs against ${base.toFixed(1)} µs for an ordinary one`);
});

nearest('should make no comparison the budget cannot pay for', () => {
  // A route table of one long segment: comparing it with a path segment a letter off would fill more cells than one request may.
  const long = 'a'.repeat(400);
  const routes: Route[] = [{ id: 'long', method: 'GET', path: `/api/v2/${long}` } as Route];
  assert.is(nearestRoute(`/api/v2/${long.slice(1)}b`, routes), null);
  const short = [{ id: 'short', method: 'GET', path: '/api/v2/abcdefgh' } as Route];
  assert.is(nearestRoute('/api/v2/abcdefg', short), '/api/v2/abcdefgh');
});

nearest.run();
