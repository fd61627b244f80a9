import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { nearestRoute } from '../../../../src/http/nearest-route.ts';

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

nearest.run();
