import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { get } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ITEM_KEYS = ['id', 'name', 'slug', 'release_date', 'model_creator', 'evaluations', 'pricing', 'median_output_tokens_per_second', 'median_time_to_first_token_seconds', 'median_time_to_first_answer_token'];
// The keys of a real legacy body, in its order (the operator's prefix renamed to `platform_`).
const EVALUATIONS = [
  'platform_intelligence_index',
  'platform_coding_index',
  'platform_math_index',
  'mmlu_pro',
  'gpqa',
  'hle',
  'livecodebench',
  'scicode',
  'math_500',
  'aime',
  'aime_25',
  'ifbench',
  'lcr',
  'terminalbench_hard',
  'terminalbench_v2_1',
  'tau2',
  'tau_banking',
];

let t: TestServer;
const setup = async () => {
  t ??= await startTestServer();
};

const language = suite('legacy language route');
language.before(setup);

language('should answer any valid key with status, prompt_options and the legacy items', async () => {
  for (const tier of ['free', 'pro', 'commercial']) {
    const reply = await get(t.url, '/api/v2/data/llms/models', t.keys[tier]);
    assert.is(reply.status, 200, tier);
    const body = reply.json();
    assert.equal(Object.keys(body), ['status', 'prompt_options', 'data']);
    assert.is(body.status, 200);
    assert.equal(body.prompt_options, { parallel_queries: 1, prompt_length: 'medium' });
    for (const item of body.data) {
      assert.equal(Object.keys(item), ITEM_KEYS);
      assert.equal(Object.keys(item.model_creator), ['id', 'name', 'slug']);
      assert.equal(Object.keys(item.evaluations), EVALUATIONS);
      assert.equal(Object.keys(item.pricing), ['price_1m_blended_3_to_1', 'price_1m_input_tokens', 'price_1m_output_tokens']);
    }
  }
  assert.is((await get(t.url, '/api/v2/data/llms/models')).status, 401, 'a key is still required');
});

language('should agree with today\'s routes: same models, prices, and the medium prompt type\'s medians', async () => {
  const legacy = (await get(t.url, '/api/v2/data/llms/models', t.keys.pro)).json().data;
  const current = (await get(t.url, '/api/v2/language/models?prompt_type=medium', t.keys.pro)).json().data;
  assert.equal(legacy.map((m: { id: string }) => m.id), current.map((m: { id: string }) => m.id));
  legacy.forEach((item: Record<string, any>, i: number) => {
    const now = current[i];
    assert.is(item.pricing.price_1m_blended_3_to_1, now.pricing.price_1m_blended_3_to_1);
    assert.is(item.median_output_tokens_per_second, now.performance.median_output_tokens_per_second);
    assert.is(item.median_time_to_first_answer_token, now.performance.median_time_to_first_answer_token_seconds);
    assert.is(item.evaluations.gpqa, now.evaluations.gpqa_diamond);
    assert.is(item.evaluations.platform_intelligence_index, now.evaluations.platform_intelligence_index);
    assert.is(item.evaluations.lcr, now.evaluations.platform_lcr);
    assert.is(item.evaluations.tau2, now.evaluations.tau2_telecom);
    for (const same of ['ifbench', 'terminalbench_hard', 'terminalbench_v2_1', 'tau_banking']) assert.is(item.evaluations[same], now.evaluations[same], same);
  });
});

language('should select the prompt type from prompt_length and parallel_queries, and echo them', async () => {
  const parallel = (await get(t.url, '/api/v2/data/llms/models?prompt_length=medium&parallel_queries=10', t.keys.free)).json();
  assert.equal(parallel.prompt_options, { parallel_queries: 10, prompt_length: 'medium' });
  const current = (await get(t.url, '/api/v2/language/models?prompt_type=medium_parallel', t.keys.pro)).json().data;
  assert.equal(
    parallel.data.map((m: { median_output_tokens_per_second: number | null }) => m.median_output_tokens_per_second),
    current.map((m: { performance: { median_output_tokens_per_second: number | null } }) => m.performance.median_output_tokens_per_second),
  );
  const refused = await get(t.url, '/api/v2/data/llms/models?prompt_length=100k&parallel_queries=10', t.keys.free);
  assert.is(refused.status, 400);
  assert.match(refused.json().error, /^Invalid combination: prompt_length=100k&parallel_queries=10/);
});

language('should count against the same quota as other routes', async () => {
  const first = Number((await get(t.url, '/api/v2/data/llms/models', t.keys.free)).headers['x-ratelimit-remaining']);
  const second = Number((await get(t.url, '/api/v2/language/models/free', t.keys.free)).headers['x-ratelimit-remaining']);
  assert.is(second, first - 1);
});

language.run();

const arenas = suite('legacy arena routes');
arenas.before(setup);

const ARENA_ITEM = ['id', 'name', 'slug', 'model_creator', 'elo', 'rank', 'ci95', 'appearances', 'release_date'];

arenas('should list the current leaderboard in the legacy shape, ci95 as -N/+N', async () => {
  for (const arena of ['text-to-image', 'image-editing', 'text-to-video', 'image-to-video']) {
    const body = (await get(t.url, `/api/v2/data/media/${arena}`, t.keys.free)).json();
    assert.equal(Object.keys(body), ['status', 'include_categories', 'data']);
    assert.equal([body.status, body.include_categories], [200, false]);
    const current = (await get(t.url, `/api/v2/media/${arena}/models`, t.keys.pro)).json().data;
    assert.equal(body.data.map((e: { id: string }) => e.id), current.map((e: { id: string }) => e.id), arena);
    body.data.forEach((item: Record<string, any>, i: number) => {
      assert.equal(Object.keys(item), ARENA_ITEM);
      assert.equal(Object.keys(item.model_creator), ['id', 'name', 'slug']);
      assert.is(item.rank, current[i].rank);
      assert.is(item.appearances, current[i].samples);
      assert.is(item.ci95, current[i].ci_95 === null ? null : `-${Math.round(current[i].ci_95)}/+${Math.round(current[i].ci_95)}`);
    });
  }
});

arenas('should add legacy categories with include_categories=true, format_category for video only', async () => {
  for (const [arena, video] of [['text-to-image', false], ['text-to-video', true]] as const) {
    const body = (await get(t.url, `/api/v2/data/media/${arena}?include_categories=true`, t.keys.free)).json();
    assert.is(body.include_categories, true);
    const categories = body.data.flatMap((e: { categories: Record<string, unknown>[] }) => e.categories);
    assert.ok(categories.length > 0);
    for (const c of categories) {
      assert.equal(Object.keys(c), ['style_category', 'subject_matter_category', ...(video ? ['format_category'] : []), 'elo', 'ci95', 'appearances']);
      const named = ['style_category', 'subject_matter_category', 'format_category'].filter((k) => typeof c[k] === 'string');
      assert.is(named.length, 1, 'each item names exactly one category');
    }
  }
});

arenas('should rank text-to-speech among eligible entries only', async () => {
  const data = (await get(t.url, '/api/v2/data/media/text-to-speech', t.keys.free)).json().data;
  data.forEach((item: { rank: number; appearances: number }, i: number) => {
    assert.is(item.rank, i + 1);
    assert.ok(item.appearances >= 500);
  });
});

arenas.after(async () => t.close());
arenas.run();
