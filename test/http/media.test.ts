import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mediaFile } from '../../build/schemas/media.ts';
import type { MediaEntry } from '../../build/types.ts';
import { MEDIA_ARENAS } from '../../src/shared/routes.ts';
import { get } from '../helpers/http.ts';
import { FIXTURES, startTestServer, type TestServer } from '../helpers/server.ts';

const FREE_FIELDS: Record<string, string[]> = {
  image: ['id', 'name', 'slug', 'model_creator', 'elo', 'ci_95'],
  video: ['id', 'name', 'slug', 'model_creator', 'elo', 'ci_95'],
  'text-to-speech': ['id', 'name', 'slug', 'model_creator', 'elo', 'ci_95'],
  music: ['id', 'name', 'model_creator', 'elo', 'ci_95'],
  'speech-to-speech': ['id', 'name', 'slug', 'model_creator', 'bba_score', 'fdb_score', 'tau_voice_score'],
  'speech-to-text': ['id', 'name', 'model_creator', 'platform_wer_index'],
};
const PRO_ADDS: Record<string, string[]> = {
  image: ['rank', 'samples', 'release_date', 'price_per_1k_images', 'open_weights_url'],
  video: ['rank', 'samples', 'release_date', 'price_per_minute', 'open_weights_url'],
  'text-to-speech': ['samples', 'release_date', 'price_per_1m_characters'],
  music: ['samples'],
  'speech-to-speech': ['providers'],
  'speech-to-text': ['platform_agenttalk', 'voxpopuli_cleaned_platform', 'earnings_22_cleaned_platform', 'open_weights', 'providers'],
};

const entriesOf = (arena: string) => JSON.parse(readFileSync(join(FIXTURES, 'sample-small', mediaFile(arena)), 'utf8')) as MediaEntry[];

let t: TestServer;
const setup = async () => {
  t ??= await startTestServer();
};

const access = suite('media routes: tiers');
access.before(setup);

access('should answer every /free route for any key and every Pro route for Pro and Commercial only', async () => {
  for (const { arena } of MEDIA_ARENAS) {
    const path = `/api/v2/media/${arena}/models`;
    for (const tier of ['free', 'pro', 'commercial']) {
      const free = await get(t.url, `${path}/free`, t.keys[tier]);
      assert.is(free.status, 200, `${tier} ${path}/free`);
      assert.is(free.json().tier, tier);
      assert.equal(Object.keys(free.json()), ['tier', 'data']);
      assert.is((await get(t.url, path, t.keys[tier])).status, tier === 'free' ? 403 : 200, `${tier} ${path}`);
    }
  }
});

access.run();

const shapes = suite('media shapes');
shapes.before(setup);

shapes('should give exactly the Free fields on /free routes and the Pro fields on the others', async () => {
  for (const { arena, family } of MEDIA_ARENAS) {
    const free = (await get(t.url, `/api/v2/media/${arena}/models/free`, t.keys.commercial)).json().data;
    const pro = (await get(t.url, `/api/v2/media/${arena}/models`, t.keys.pro)).json().data;
    assert.ok(free.length > 0 && pro.length > 0, arena);
    for (const item of free) assert.equal(Object.keys(item), FREE_FIELDS[family], `${arena} free`);
    for (const item of pro) assert.equal(Object.keys(item), [...FREE_FIELDS[family], ...PRO_ADDS[family]], `${arena} pro`);
  }
});

shapes('should carry no slug on music and speech-to-text, and no elo on speech-to-text', async () => {
  for (const arena of ['music/instrumental', 'music/with-vocals', 'speech-to-text']) {
    for (const item of (await get(t.url, `/api/v2/media/${arena}/models`, t.keys.pro)).json().data) {
      assert.not.ok('slug' in item, arena);
      if (arena === 'speech-to-text') assert.not.ok('elo' in item);
    }
  }
});

shapes('should list only ranked entries on image and video routes, ranked 1..n by Elo', async () => {
  for (const { arena, family } of MEDIA_ARENAS.filter((a) => a.family === 'image' || a.family === 'video')) {
    const data = (await get(t.url, `/api/v2/media/${arena}/models`, t.keys.pro)).json().data;
    const entries = new Map(entriesOf(arena).map((e) => [e.id, e]));
    const excluded = [...entries.values()].filter((e) => (e.samples ?? 0) < 500 || e.superseded_by);
    assert.ok(excluded.length > 0, `${arena}: the fixture exercises the rule`);
    for (const item of data) {
      const entry = entries.get(item.id)!;
      assert.ok(entry.samples! >= 500 && !entry.superseded_by, `${arena}: ${entry.name} is listed`);
    }
    assert.is(data.length, entries.size - excluded.length, `${family} lists every eligible entry`);
    data.forEach((item: { rank: number; elo: number }, i: number) => {
      assert.is(item.rank, i + 1);
      if (i > 0) assert.ok(data[i - 1].elo >= item.elo);
    });
    const free = (await get(t.url, `/api/v2/media/${arena}/models/free`, t.keys.free)).json().data;
    assert.equal(free.map((e: { id: string }) => e.id), data.map((e: { id: string }) => e.id));
  }
});

shapes.run();

const flags = suite('categories and genres');
flags.before(setup);

flags('should add categories and genres to Pro answers only when asked', async () => {
  for (const { arena, flag } of MEDIA_ARENAS.filter((a) => a.flag)) {
    const field = flag === 'include_categories' ? 'categories' : 'genres';
    const plain = (await get(t.url, `/api/v2/media/${arena}/models`, t.keys.pro)).json().data;
    const asked = (await get(t.url, `/api/v2/media/${arena}/models?${flag}=true`, t.keys.commercial)).json().data;
    assert.ok(plain.every((e: object) => !(field in e)), arena);
    assert.ok(asked.every((e: Record<string, unknown>) => Array.isArray(e[field])), arena);
    assert.ok(asked.some((e: Record<string, unknown[]>) => e[field].length > 0));
    for (const item of asked.flatMap((e: Record<string, unknown[]>) => e[field])) assert.equal(Object.keys(item as object), ['label', 'elo', 'ci_95', 'samples']);
    const free = await get(t.url, `/api/v2/media/${arena}/models/free?${flag}=true`, t.keys.pro);
    assert.is(free.status, 200, 'the flag is accepted on /free routes');
    assert.ok(free.json().data.every((e: object) => !(field in e)), 'and ignored there');
  }
});

flags('should reject a flag value that is not true or false', async () => {
  for (const value of ['1', 'yes', 'TRUE']) {
    const reply = await get(t.url, `/api/v2/media/text-to-video/models?include_categories=${value}`, t.keys.pro);
    assert.is(reply.status, 400);
    assert.is(reply.json().error, 'Invalid include_categories: must be true or false');
  }
});

flags.run();

const speech = suite('speech derivations');
speech.before(setup);

speech('should give a speech-to-speech model its best tau-voice result across providers', async () => {
  const data = (await get(t.url, '/api/v2/media/speech-to-speech/models', t.keys.pro)).json().data;
  const entries = new Map(entriesOf('speech-to-speech').map((e) => [e.id, e]));
  for (const item of data) {
    const scores = (entries.get(item.id)!.providers ?? []).map((p) => p.tau_voice_score).filter((s): s is number => typeof s === 'number');
    assert.is(item.tau_voice_score, scores.length ? Math.max(...scores) : null, item.name);
  }
});

speech('should make the speech-to-text WER index the mean of the three error rates', async () => {
  for (const item of (await get(t.url, '/api/v2/media/speech-to-text/models', t.keys.pro)).json().data) {
    const rates = [item.platform_agenttalk, item.voxpopuli_cleaned_platform, item.earnings_22_cleaned_platform];
    const expected = rates.includes(null) ? null : Math.round(((rates[0] + rates[1] + rates[2]) / 3) * 1e4) / 1e4;
    assert.is(item.platform_wer_index, expected, item.name);
  }
});

speech.after(async () => t.close());
speech.run();
