/**
 * Nothing that needs a key is readable without one. Every answer the server gives without a
 * key (the OpenAPI document, the front door as JSON and as HTML, 404s and their "did you mean"
 * for unknown paths, /healthz, /readyz ready and not ready, /metrics, the 401s, a 405 and a
 * 400) is scanned, headers and body, for the served data's values that only keyed answers
 * carry. On the shared sample build (test/helpers/sample.ts) and the real server on port 0.
 *
 * What counts as a keyed value, and why:
 * - every id, slug and name of a language model, provider, model creator and media arena
 *   entry, every endpoint id and every CritPt problem id, as data/ holds them; all are in
 *   keyed bodies (a creator's slug in the legacy routes). Values shorter than 4 characters
 *   are skipped: a name that short would match ordinary words of the documents. Creators'
 *   country codes are skipped for the same reason. A value is found only as a whole word
 *   (no letter or digit either side), so "flint-1-6" is not found inside "flint-1-6-nano".
 * - every decimal with at least 4 significant digits written in any keyed body or
 *   measurements fragment of the build, as written there (JSON.stringify's form). Integers
 *   (token counts, appearances, context windows) and shorter decimals (0.5, 1.25) are
 *   skipped: ordinary figures of any document (sizes, ports, years, round prices) are such.
 * What an answer merely echoes of its own request (a 404 repeating the path) reveals nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_OPTIONS } from '../../src/config.ts';
import { createKey } from '../../src/keys/changes.ts';
import { MANIFEST_FILE, PACK_FILE, readAllEntries, variantOf, type Manifest } from '../../src/shared/manifest.ts';
import { ROUTES } from '../../src/shared/routes.ts';
import { startServer, type RunningServer } from '../../src/start.ts';
import { request, type Reply } from '../helpers/http.ts';
import { ROOT } from '../helpers/process.ts';
import { sampleSnapshot } from '../helpers/sample.ts';
import { TestClock } from '../helpers/server.ts';

const MIN_NAME_LENGTH = 4;
const MIN_SIGNIFICANT_DIGITS = 4;
/** A decimal standing alone: not part of a word, a version, a date or an exponent form. */
const DECIMAL = /(?<![\w.])\d+\.\d+(?![\w.])/g;

const significantDigits = (decimal: string) => decimal.replace('.', '').replace(/^0+/, '').length;

/** Ids, slugs and names of everything the data names; every one is served only with a key. */
function keyedNames(dataDir: string): Set<string> {
  const read = (file: string) => JSON.parse(readFileSync(join(dataDir, file), 'utf8')) as Record<string, unknown>[];
  const records = [
    ...read('language-models.json'),
    ...read('providers.json'),
    ...read('model-creators.json'),
    ...readdirSync(join(dataDir, 'media')).flatMap((file) => read(join('media', file))),
  ];
  const names = new Set<string>();
  for (const record of records) for (const field of ['id', 'slug', 'name']) if (typeof record[field] === 'string') names.add(record[field]);
  for (const endpoint of read('provider-endpoints.json')) names.add(String(endpoint.id));
  for (const problem of JSON.parse(readFileSync(join(dataDir, 'critpt-problems.json'), 'utf8')) as string[]) names.add(problem);
  return new Set([...names].filter((n) => n.length >= MIN_NAME_LENGTH));
}

/** Every distinctive decimal of every keyed body and measurements fragment of the build. */
function keyedNumbers(buildDir: string): Set<string> {
  const manifest = JSON.parse(readFileSync(join(buildDir, MANIFEST_FILE), 'utf8')) as Manifest;
  const pack = readFileSync(join(buildDir, PACK_FILE));
  const publicRoutes = new Set(ROUTES.filter((r) => r.public).map((r) => r.id));
  const numbers = new Set<string>();
  const collect = (text: string) => {
    for (const [decimal] of text.matchAll(DECIMAL)) if (significantDigits(decimal) >= MIN_SIGNIFICANT_DIGITS) numbers.add(decimal);
  };
  const seen = new Set<string>();
  for (const [name, entry] of readAllEntries(buildDir, manifest)) {
    if (publicRoutes.has(name.slice(0, name.indexOf(' '))) || seen.has(entry[0])) continue;
    seen.add(entry[0]);
    collect(variantOf(pack, entry, 'identity').toString('utf8'));
  }
  for (const { data } of Object.values(manifest.fragments)) collect(gunzipSync(pack.subarray(data[0], data[0] + data[1])).toString('utf8'));
  return numbers;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The keyed values an answer shows, leaving out what its own request target holds. */
function revealed(answer: string, target: string, names: ReadonlySet<string>, numbers: ReadonlySet<string>): string[] {
  const echoed = (value: string) => target.includes(value);
  const found: string[] = [];
  for (const name of names) {
    if (!answer.includes(name) || echoed(name)) continue;
    if (new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(name)}(?![A-Za-z0-9])`).test(answer)) found.push(name);
  }
  for (const [decimal] of answer.matchAll(DECIMAL)) if (numbers.has(decimal) && !echoed(decimal)) found.push(decimal);
  return [...new Set(found)];
}

/** What a client sees of an answer: status line, headers and body. */
function shown(reply: Reply): string {
  return `${reply.status}\n${Object.entries(reply.headers).map(([k, v]) => `${k}: ${String(v)}`).join('\n')}\n\n${reply.text}`;
}

/** A slug the data does not have that looks like one it has: a letter short, or one more. */
function nearMisses(slug: string, names: ReadonlySet<string>): string[] {
  return [slug.slice(0, -1), `${slug}x`, `${slug[0].toUpperCase()}${slug.slice(1)}`].filter((s) => !names.has(s));
}

let server: RunningServer;
let root: string;
let stateDir: string;
let names: Set<string>;
let numbers: Set<string>;
let commercial: string;
const firstSlug = (file: string) => (JSON.parse(readFileSync(join(ROOT, 'data', file), 'utf8')) as { slug: string }[])[0].slug;

const scan = suite('answers without a key');

scan.before(async () => {
  const sample = await sampleSnapshot();
  names = keyedNames(join(ROOT, 'data'));
  numbers = keyedNumbers(sample.buildDir);
  root = mkdtempSync(join(tmpdir(), 'no-key-'));
  stateDir = join(root, 'state');
  const providers = (JSON.parse(readFileSync(join(ROOT, 'data/providers.json'), 'utf8')) as { slug: string }[]).map((p) => p.slug);
  commercial = createKey(stateDir, { tier: 'commercial', org: 'o', user: 'c', grants: providers }).key;
  const manifest = JSON.parse(readFileSync(join(sample.buildDir, MANIFEST_FILE), 'utf8')) as Manifest;
  // Whole seconds since the build, so the metrics' snapshot age is a round figure.
  const clock = new TestClock(Date.parse(manifest.built_at) + 60_000);
  server = await startServer({ ...DEFAULT_OPTIONS, port: 0, host: '127.0.0.1', snapshotDir: sample.outDir, stateDir, quiet: true, metrics: true }, { clock, log: () => {}, logError: () => {}, accessLog: () => {} });
});

scan.after(async () => {
  await server.close();
  rmSync(root, { recursive: true, force: true });
});

scan('should know enough keyed values to mean something', () => {
  assert.ok(names.size > 1000, `${names.size} names`);
  assert.ok(numbers.size > 10_000, `${numbers.size} numbers`);
  assert.ok(names.has(firstSlug('language-models.json')) && names.has(firstSlug('providers.json')));
});

/** Request each target without a key (or with the given headers) and list what each reveals. */
async function leaks(requests: { target: string; method?: string; headers?: Record<string, string>; status?: number }[]): Promise<string[]> {
  const out: string[] = [];
  for (const { target, method, headers, status } of requests) {
    const reply = await request(server.url, target, { method, headers });
    if (status !== undefined) assert.is(reply.status, status, `${method ?? 'GET'} ${target}`);
    const found = revealed(shown(reply), target, names, numbers);
    if (found.length) out.push(`${method ?? 'GET'} ${target} (${reply.status}) shows ${found.slice(0, 8).join(', ')}${found.length > 8 ? ` and ${found.length - 8} more` : ''}`);
  }
  return out;
}

scan('should show nothing keyed in the OpenAPI document', async () => {
  assert.equal(await leaks([{ target: '/api/v2/openapi.json', status: 200 }]), []);
});

scan('should show nothing keyed on the front door, as JSON or as HTML', async () => {
  const html = { accept: 'text/html' };
  const targets = ['/', '/api/v2', '/?format=html', '/api/v2?format=html', '/?format=json'];
  assert.equal(await leaks([...targets.map((target) => ({ target, status: 200 })), { target: '/', headers: html, status: 200 }, { target: '/api/v2', headers: html, status: 200 }]), []);
});

scan('should show nothing keyed in /healthz, /readyz (ready and not ready) and /metrics', async () => {
  // Keyed requests first, so the metrics have something to count.
  const model = firstSlug('language-models.json');
  const provider = firstSlug('providers.json');
  for (const target of [`/api/v2/language/models/${model}`, `/api/v2/language/providers/${provider}/measurements`, '/api/v2/language/models/no-such-model']) {
    await request(server.url, target, { headers: { 'x-api-key': commercial } });
  }
  const found = await leaks([
    { target: '/healthz', status: 200 },
    { target: '/readyz', status: 200 },
    { target: '/metrics', status: 200 },
  ]);
  renameSync(stateDir, `${stateDir}.away`);
  try {
    found.push(...(await leaks([{ target: '/readyz', status: 503 }])));
  } finally {
    renameSync(`${stateDir}.away`, stateDir);
  }
  assert.equal(found, []);
});

scan('should show nothing keyed in a 401, and answer a real slug and a made-up one alike', async () => {
  const model = firstSlug('language-models.json');
  const provider = firstSlug('providers.json');
  const targets = [`/api/v2/language/models/${model}`, `/api/v2/language/providers/${provider}/measurements`, '/api/v2/language/models', '/api/v2/critpt/problems'];
  const keyless = targets.flatMap((target) => [{ target, status: 401 }, { target, headers: { 'x-api-key': 'bdk_not-a-key' }, status: 401 }]);
  assert.equal(await leaks(keyless), []);
  for (const [real, madeUp] of [
    [`/api/v2/language/models/${model}`, '/api/v2/language/models/no-such-model'],
    [`/api/v2/language/providers/${provider}/measurements`, '/api/v2/language/providers/no-such-provider/measurements'],
  ]) {
    const [a, b] = [await request(server.url, real), await request(server.url, madeUp)];
    assert.is(a.status, b.status);
    assert.is(a.text, b.text, 'the 401 does not tell a real slug from a made-up one');
  }
});

scan('should show nothing keyed in a 404 or its "did you mean", for paths that resemble real slugs', async () => {
  const model = firstSlug('language-models.json');
  const provider = firstSlug('providers.json');
  const arena = firstSlug('media/text-to-image.json');
  const targets = [
    ...nearMisses(model, names).flatMap((m) => [`/api/v2/language/model/${m}`, `/api/v2/language/models/${m}/performanc`, `/api/v2/Language/Models/${m}/`, `/api/v2/${m}`, `/${m}`]),
    ...nearMisses(provider, names).flatMap((p) => [`/api/v2/language/provider/${p}/measurements`, `/api/v2/language/providers/${p}/measurement`, `/api/v2/language/providers/${p}/`]),
    ...nearMisses(arena, names).flatMap((a) => [`/api/v2/media/text-to-image/models/${a}`, `/api/v2/media/text-to-imag/${a}`]),
    '/api/v2/language/models/free/x',
  ];
  const found = await leaks(targets.map((target) => ({ target, status: 404 })));
  assert.equal(found, []);
});

scan('should show nothing keyed in a 405 or a 400', async () => {
  const model = firstSlug('language-models.json');
  assert.equal(
    await leaks([
      { target: `/api/v2/language/models/${model}x`, method: 'POST', status: 405 },
      { target: '/api/v2/openapi.json', method: 'DELETE', status: 405 },
      { target: '/api/v2/language/models/%zz', status: 400 },
    ]),
    [],
  );
});

scan.run();
