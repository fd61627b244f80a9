/**
 * Every answer a client of the original service can get, held to that service's own OpenAPI
 * document: every page of both language lists for every prompt type and tier, every model
 * detail as Pro and as Commercial, every provider route, a sample of series and measurements,
 * every media route with and without its flag, a CritPt verdict, and the error answers.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MEDIA_ARENAS, PERFORMANCE_INTERVALS, PERFORMANCE_WINDOWS, PROMPT_TYPES, ROUTES, type Route, type Tier } from '../../src/shared/routes.ts';
import { ContractChecker, ORIGINAL_OPENAPI, originalDocument } from '../helpers/contract.ts';
import { get, request, type Reply } from '../helpers/http.ts';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.ts';

const doc = originalDocument();
const contract = suite('answers held to the original OpenAPI document');

/** The statuses the contract gives where the document gives none; the README lists them. */
const SPEC_ONLY_STATUSES = [
  '400 GET /api/v2/media/image-editing/models',
  '400 GET /api/v2/media/image-to-video-audio/models',
  '400 GET /api/v2/media/image-to-video/models',
  '400 GET /api/v2/media/music/instrumental/models',
  '400 GET /api/v2/media/music/with-vocals/models',
  '400 GET /api/v2/media/speech-to-speech/models',
  '400 GET /api/v2/media/speech-to-speech/models/free',
  '400 GET /api/v2/media/speech-to-text/models',
  '400 GET /api/v2/media/speech-to-text/models/free',
  '400 GET /api/v2/media/text-to-image/models',
  '400 GET /api/v2/media/text-to-speech/models',
  '400 GET /api/v2/media/text-to-speech/models/free',
  '400 GET /api/v2/media/text-to-video-audio/models',
  '400 GET /api/v2/media/text-to-video/models',
  '403 POST /api/v2/critpt/evaluate',
];

const PROVIDERS = (JSON.parse(readFileSync(`${FIXTURES}sample-small/providers.json`, 'utf8')) as { slug: string }[]).map((p) => p.slug);
const CRITPT_BATCH = JSON.stringify({
  submissions: Array.from({ length: 70 }, (_, i) => ({ problem_id: `Challenge_${i + 1}_main`, generated_code: 'def answer():\n    return 42\n', model: 'aster-3', generation_config: {} })),
  batch_metadata: {},
});

if (!doc) {
  contract.skip(`should hold every answer to the original document (skipped: ${ORIGINAL_OPENAPI} not found)`, () => {});
  console.log(`skipped: the original OpenAPI document is not at ${ORIGINAL_OPENAPI}`);
} else {
  let t: TestServer;
  let grader: Server;
  const checker = new ContractChecker(doc);

  contract.before(async () => {
    grader = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accuracy: 0.5, timeout_rate: 0, server_timeout_count: 0, judge_error_count: 0 }));
      });
    });
    await new Promise<void>((r) => grader.listen(0, '127.0.0.1', r));
    t = await startTestServer({
      pageSize: 5,
      server: { critptUpstream: `http://127.0.0.1:${(grader.address() as AddressInfo).port}/grade` },
      keys: {
        free: { tier: 'free', org: 'acme', user: 'fran' },
        pro: { tier: 'pro', org: 'acme', user: 'pat' },
        commercial: { tier: 'commercial', org: 'bigco', user: 'cora', grants: PROVIDERS, critpt: true },
        ungranted: { tier: 'commercial', org: 'bigco', user: 'uma' },
        tiny: { tier: 'commercial', org: 'tiny', quota: 1 },
      },
    });
  });

  contract.after(async () => {
    await t.close();
    await new Promise((r) => grader.close(r));
  });

  const routeOf = (id: string): Route => ROUTES.find((r) => r.id === id)!;

  /** GET a route's path (slug filled in, query appended) as a named key, and hold the answer to the document. */
  async function call(route: Route, who: string | null, options: { slug?: string; query?: string; key?: string } = {}): Promise<Reply> {
    const path = route.path.replace('{slug}', options.slug ?? '');
    const target = options.query ? `${path}?${options.query}` : path;
    const key = options.key ?? (who === null ? undefined : t.keys[who]);
    const reply = await get(t.url, target, key);
    checker.check(`${who ?? 'no key'} ${target}`, route.path, route.method, reply);
    return reply;
  }

  /** Every page of a paginated route, and the empty page after the last; the items of all pages. */
  async function allPages(route: Route, who: string, query = ''): Promise<Record<string, any>[]> {
    const items: Record<string, any>[] = [];
    for (let page = 1; ; page++) {
      const reply = await call(route, who, { query: `${query}${query ? '&' : ''}page=${page}` });
      assert.is(reply.status, 200, `${who} ${route.path} page ${page}`);
      const body = reply.json();
      items.push(...body.data);
      if (!body.pagination.has_more) {
        await call(route, who, { query: `${query}${query ? '&' : ''}page=${page + 1}` });
        return items;
      }
    }
  }

  contract('should answer every page of both lists, for every prompt type and tier, as documented', async () => {
    for (const who of ['free', 'pro', 'commercial']) await allPages(routeOf('language.models.free'), who);
    for (const who of ['pro', 'commercial']) for (const prompt of PROMPT_TYPES) await allPages(routeOf('language.models'), who, `prompt_type=${prompt}`);
    await call(routeOf('language.models'), 'pro');
  });

  contract('should answer every model detail as Pro and as Commercial, and the model series, as documented', async () => {
    const slugs = (await allPages(routeOf('language.models'), 'pro')).map((m) => m.slug);
    assert.ok(slugs.length > 5, 'more than one page of models');
    for (const slug of slugs) {
      for (const who of ['pro', 'commercial']) for (const prompt of PROMPT_TYPES) assert.is((await call(routeOf('language.model'), who, { slug, query: `prompt_type=${prompt}` })).status, 200);
      await call(routeOf('language.model.performance'), 'commercial', { slug });
    }
    for (const window of PERFORMANCE_WINDOWS) for (const interval of PERFORMANCE_INTERVALS) await call(routeOf('language.model.performance'), 'commercial', { slug: slugs[0], query: `window=${window}&interval=${interval}` });
  });

  contract('should answer every provider route as documented', async () => {
    const slugs = (await allPages(routeOf('language.providers'), 'commercial')).map((p) => p.slug);
    assert.equal([...slugs].sort(), [...PROVIDERS].sort());
    for (const slug of slugs) {
      for (const prompt of PROMPT_TYPES) await call(routeOf('language.provider'), 'commercial', { slug, query: `prompt_type=${prompt}` });
      await call(routeOf('language.provider.performance'), 'commercial', { slug });
      assert.is((await call(routeOf('language.provider.measurements'), 'commercial', { slug })).status, 200);
      await call(routeOf('language.provider.measurements'), 'commercial', { slug, query: 'prompt_type=medium&start_date=2026-11-01' });
    }
    for (const window of PERFORMANCE_WINDOWS) for (const interval of PERFORMANCE_INTERVALS) await call(routeOf('language.provider.performance'), 'commercial', { slug: slugs[0], query: `window=${window}&interval=${interval}&prompt_type=medium` });
  });

  contract('should answer every media route, with and without its flag, as documented', async () => {
    for (const { arena, flag } of MEDIA_ARENAS) {
      const queries = flag ? ['', `${flag}=true`, `${flag}=false`] : [''];
      for (const who of ['free', 'pro', 'commercial']) assert.is((await call(routeOf(`media.${arena.replace('/', '.')}.free`), who)).status, 200);
      for (const who of ['pro', 'commercial']) for (const query of queries) assert.is((await call(routeOf(`media.${arena.replace('/', '.')}`), who, { query })).status, 200);
    }
  });

  contract('should answer a CritPt verdict as documented (its reset header a date, as the contract has it)', async () => {
    const reply = await request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: CRITPT_BATCH, headers: { 'content-type': 'application/json', 'x-api-key': t.keys.commercial } });
    assert.is(reply.status, 200, reply.text);
    checker.check('commercial critpt', '/api/v2/critpt/evaluate', 'POST', reply, ['X-RateLimit-Reset']);
    const bad = await request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: '{"submissions": 1}', headers: { 'content-type': 'application/json', 'x-api-key': t.keys.commercial } });
    checker.check('commercial critpt bad', '/api/v2/critpt/evaluate', 'POST', bad);
    const keyless = await request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: CRITPT_BATCH, headers: { 'content-type': 'application/json' } });
    checker.check('no key critpt', '/api/v2/critpt/evaluate', 'POST', keyless);
    const unapproved = await request(t.url, '/api/v2/critpt/evaluate', { method: 'POST', body: CRITPT_BATCH, headers: { 'content-type': 'application/json', 'x-api-key': t.keys.pro } });
    checker.check('pro critpt', '/api/v2/critpt/evaluate', 'POST', unapproved);
    assert.equal([bad.status, keyless.status, unapproved.status], [400, 401, 403]);
  });

  // Routes this server adds (the problem list beside the grading, what changed between builds, a model's history)
  // are not in the original document; test/http/changes.test.ts holds the last two to this server's own.
  const ownRoutes = new Set(['critpt.problems', 'changes', 'language.model.history']);
  const dataRoutes = ROUTES.filter((r) => r.method === 'GET' && !r.public && !r.id.startsWith('legacy.') && !ownRoutes.has(r.id));
  const lowest = (route: Route): string => (route.tiers.includes('free') ? 'free' : route.tiers.includes('pro') ? 'pro' : 'commercial');
  const slugFor = (route: Route) => (route.slugOf === 'Model' ? JSON.parse(readFileSync(`${FIXTURES}sample-small/language-models.json`, 'utf8'))[0].slug : PROVIDERS[0]);

  contract('should answer 400, 401, 403 and 404 as documented on every route', async () => {
    for (const route of dataRoutes) {
      const slug = route.path.includes('{slug}') ? slugFor(route) : undefined;
      const who = lowest(route);
      assert.is((await call(route, null, { slug })).status, 401, route.id);
      assert.is((await call(route, 'nobody', { slug, key: 'bdk_not_a_key' })).status, 401, route.id);
      assert.is((await call(route, who, { slug, query: 'bogus=1' })).status, 400, route.id);
      if (route.query.prompt_type) assert.is((await call(route, who, { slug, query: 'prompt_type=huge' })).status, 400);
      if (route.query.page) assert.is((await call(route, who, { slug, query: 'page=0' })).status, 400);
      for (const below of (['free', 'pro'] as Tier[]).filter((tier) => !route.tiers.includes(tier))) assert.is((await call(route, below, { slug })).status, 403, route.id);
      if (slug) assert.is((await call(route, 'commercial', { slug: 'no-such-slug' })).status, 404, route.id);
    }
    assert.is((await call(routeOf('language.provider.measurements'), 'ungranted', { slug: PROVIDERS[0] })).status, 403);
  });

  contract('should answer 429 as documented on every route', async () => {
    assert.is((await call(routeOf('language.models.free'), 'tiny')).status, 200);
    for (const route of dataRoutes) {
      const slug = route.path.includes('{slug}') ? slugFor(route) : undefined;
      if (route.needsProviderGrant) continue; // the grant check comes first: tiny holds none
      assert.is((await call(route, 'tiny', { slug })).status, 429, route.id);
    }
  });

  contract('should find no answer that breaks the document', () => {
    const failures = checker.failures();
    console.log(`contract: ${checker.checked.length} answers checked against the original OpenAPI document, ${failures.length} failing`);
    assert.ok(checker.checked.length > 500, `${checker.checked.length} answers checked`);
    assert.equal(
      failures.slice(0, 15).map((f) => `${f.status} ${f.label}: ${f.problems.join('; ')}`),
      [],
    );
    assert.equal(checker.undocumented(), SPEC_ONLY_STATUSES);
  });
}

contract.run();
