import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../../src/http/error.ts';
import { Router } from '../../../../src/http/router.ts';
import { parseTarget } from '../../../../src/http/router.ts';

const router = new Router();

function failure(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (error) {
    if (error instanceof HttpError) return error;
    throw error;
  }
  throw new Error('expected an HttpError');
}

const matching = suite('Router.match');

matching('should match exact paths before slug patterns', () => {
  assert.is(router.match('GET', '/api/v2/language/models/free').route.id, 'language.models.free');
  const detail = router.match('GET', '/api/v2/language/models/gpt-x');
  assert.is(detail.route.id, 'language.model');
  assert.is(detail.slug, 'gpt-x');
});

matching('should match nested slug routes by their fixed segments', () => {
  const m = router.match('GET', '/api/v2/language/providers/acme/measurements');
  assert.is(m.route.id, 'language.provider.measurements');
  assert.is(m.slug, 'acme');
});

matching('should answer HEAD with the GET route', () => {
  assert.is(router.match('HEAD', '/api/v2/language/models').route.id, 'language.models');
});

matching('should be 404 for an unknown path, a trailing slash or an empty slug', () => {
  assert.is(failure(() => router.match('GET', '/api/v2/nothing')).status, 404);
  assert.is(failure(() => router.match('GET', '/api/v2/language/models/')).status, 404);
});

matching('should be 405 with Allow for a wrong method', () => {
  const error = failure(() => router.match('DELETE', '/api/v2/language/models'));
  assert.is(error.status, 405);
  assert.is(error.headers?.Allow, 'GET, HEAD');
  const post = failure(() => router.match('GET', '/api/v2/critpt/evaluate'));
  assert.is(post.status, 405);
  assert.is(post.headers?.Allow, 'POST');
});

matching.run();

const target = suite('parseTarget');

target('should split path and query', () => {
  assert.equal(parseTarget('/a/b?x=1&y=2'), { path: '/a/b', query: 'x=1&y=2' });
  assert.equal(parseTarget('/a'), { path: '/a', query: '' });
});

target('should decode percent-encoded path segments', () => {
  assert.equal(parseTarget('/api/v2/language/models/gpt%2Dx').path, '/api/v2/language/models/gpt-x');
});

target('should be 400 for malformed percent-encoding', () => {
  assert.is(failure(() => parseTarget('/api/%E0%A4%A')).status, 400);
});

target('should be 414 for an over-long target and 400 for one neither a path nor an absolute http URL', () => {
  assert.is(failure(() => parseTarget(`/${'a'.repeat(9000)}`)).status, 414);
  assert.is(failure(() => parseTarget(`http://example.com/${'a'.repeat(9000)}`)).status, 414);
  assert.is(failure(() => parseTarget('ftp://example.com/x')).status, 400);
  assert.is(failure(() => parseTarget('example.com/x')).status, 400);
});

target('should take an absolute-form target as its path and query, ignoring the authority', () => {
  assert.equal(parseTarget('http://example.com/api/v2/x?page=2'), { path: '/api/v2/x', query: 'page=2' });
  assert.equal(parseTarget('HTTPS://user@example.com:8443/a%20b'), { path: '/a b', query: '' });
  assert.equal(parseTarget('http://example.com'), { path: '/', query: '' });
  assert.equal(parseTarget('http://example.com?x=1'), { path: '/', query: 'x=1' });
});

target.run();
