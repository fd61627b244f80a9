import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ENCODINGS, MANIFEST_FILE, PACK_FILE, readAllEntries, spanOf, variantOf, type Manifest } from '../../src/shared/manifest.ts';
import { runBuild } from '../../build/build.ts';
import { parseBuildArgs } from '../../build/main.ts';
import { build, builtTree, command, editJson, fixtureTree, type Tree } from '../helpers/fixture-tree.ts';
import { ROOT } from '../helpers/process.ts';

function readSnapshot(dir: string) {
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
  const pack = readFileSync(join(dir, PACK_FILE));
  const all = readAllEntries(dir, manifest);
  const entries = Object.fromEntries([...all].map(([key, entry]) => [key, entry[0]]));
  const variant = (key: string, v: number) => variantOf(pack, all.get(key)!, ENCODINGS[v]);
  const json = (key: string) => JSON.parse(variant(key, 0).toString('utf8'));
  return { manifest, entries, variant, json };
}

const determinism = suite('determinism and rebuilds');

determinism('should write byte-identical bodies for the same input', async () => {
  const tree = fixtureTree();
  const first = await build(tree);
  const a = readSnapshot(first.snapshotDir);
  const second = await build(tree, { force: true });
  assert.is.not(second.buildId, first.buildId);
  const b = readSnapshot(second.snapshotDir);
  // The front door names its build; every other body depends on the input alone.
  const door = (key: string) => key.startsWith('index');
  const without = (entries: Record<string, string>) => Object.fromEntries(Object.entries(entries).filter(([key]) => !door(key)));
  assert.equal(without(b.entries), without(a.entries));
  for (const key of Object.keys(a.entries).filter((k) => !door(k))) assert.equal(b.variant(key, 0), a.variant(key, 0), key);
  assert.is(second.reused, 0, '--force compresses every body anew');
  rmSync(tree.root, { recursive: true, force: true });
});

/** Flip one byte in the middle of a stored variant of an entry of a build (the current one by default); returns the body's hash. */
function rot(tree: Tree, routeId: string, encoding: 'gzip' | 'br', buildId = readlinkSync(join(tree.out, 'current'))): string {
  const dir = join(tree.out, buildId);
  const manifest = JSON.parse(readFileSync(join(dir, MANIFEST_FILE), 'utf8')) as Manifest;
  const [, entry] = [...readAllEntries(dir, manifest)].find(([key]) => key.startsWith(`${routeId} `))!;
  const [offset, length] = spanOf(entry, encoding);
  const pack = readFileSync(join(dir, PACK_FILE));
  pack[offset + (length >> 1)] ^= 0xff;
  writeFileSync(join(dir, PACK_FILE), pack);
  return entry[0];
}

determinism('should reuse only compressed bodies that pass their checksum', async () => {
  const tree = fixtureTree();
  const first = await build(tree);
  const hash = rot(tree, 'language.models', 'br');
  editJson(join(tree.data, 'providers.json'), (providers) => (providers[0].name = 'Renamed Cloud'));
  const lines: string[] = [];
  const second = await build(tree, { log: (line) => lines.push(line) });
  assert.ok(second.reused > 0 && second.reused < first.bodies, `${second.reused} of ${second.bodies} reused`);
  assert.match(lines.join('\n'), /; 1 bodies of the previous build failed their checksum and were compressed anew/);
  const { entries, variant } = readSnapshot(second.snapshotDir);
  const key = Object.keys(entries).find((k) => entries[k] === hash)!;
  assert.ok(brotliDecompressSync(variant(key, 2)).equals(variant(key, 0)), 'the new build holds sound bytes of the body that rotted');
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should build again, not call up to date or switch back to, a build that fails its check', async () => {
  const tree = await builtTree();
  const first = { buildId: readlinkSync(join(tree.out, 'current')) };
  rot(tree, 'language.model', 'gzip');
  const lines: string[] = [];
  const again = await build(tree, { log: (line) => lines.push(line) });
  assert.ok(again.built, 'built, not "up to date"');
  assert.match(lines[0], new RegExp(`^build ${first.buildId} is corrupt: 1 stored part fails its checksum \\(gzip variant of body .+\\); building it again$`));
  // A kept build of identical inputs that rotted is not switched back to either.
  const path = join(tree.data, 'providers.json');
  const original = readFileSync(path);
  editJson(path, (providers) => (providers[0].name = 'Renamed Cloud'));
  await build(tree);
  rot(tree, 'language.models', 'br', again.buildId);
  writeFileSync(path, original);
  const back = await build(tree);
  assert.ok(back.built, 'built anew');
  assert.is.not(back.buildId, again.buildId);
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should not rebuild unchanged inputs without --force, and rebuild when data changes', async () => {
  const tree = await builtTree();
  const unchanged = await command(tree);
  assert.is(unchanged.status, 0);
  assert.match(unchanged.stdout, /is up to date/);
  editJson(join(tree.data, 'providers.json'), (providers) => (providers[0].name = 'Renamed Cloud'));
  const changed = await command(tree);
  assert.match(changed.stdout, /built snapshot/);
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should switch current to the new build and keep only the previous one, or --keep N', async () => {
  const tree = fixtureTree();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await build(tree, { force: true })).buildId);
  assert.is(readlinkSync(join(tree.out, 'current')), ids[2]);
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current').sort(), ids.slice(1).sort());
  ids.push((await build(tree, { force: true, keep: 2 })).buildId);
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current').sort(), ids.slice(1).sort(), '--keep 2 keeps two before the current one');
  const kept = await command(tree, '--force', '--keep', '0');
  assert.is(kept.status, 0, kept.stderr);
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current'), [readlinkSync(join(tree.out, 'current'))], '--keep 0 keeps the current build only');
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should switch back to a kept build of identical inputs instead of writing a copy', async () => {
  const tree = await builtTree();
  const path = join(tree.data, 'providers.json');
  const original = readFileSync(path);
  const first = { buildId: readlinkSync(join(tree.out, 'current')) };
  editJson(path, (providers) => (providers[0].name = 'Renamed Cloud'));
  const changed = await build(tree);
  assert.ok(changed.built);
  writeFileSync(path, original);
  const lines: string[] = [];
  const back = await build(tree, { log: (line) => lines.push(line) });
  assert.not.ok(back.built, 'nothing written');
  assert.is(back.buildId, first.buildId);
  assert.is(readlinkSync(join(tree.out, 'current')), first.buildId);
  assert.match(lines.join('\n'), new RegExp(`switched to snapshot ${first.buildId}, already built from these inputs`));
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current').sort(), [first.buildId, changed.buildId].sort(), 'two folders for three builds');
  rmSync(tree.root, { recursive: true, force: true });
});

/** Every file of a folder, by its path inside it, with its bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  return new Map(
    (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
      .filter((entry) => entry.isFile() || entry.isSymbolicLink())
      .map((entry) => {
        const path = join(entry.parentPath, entry.name);
        return [path.slice(dir.length + 1), entry.isSymbolicLink() ? Buffer.from(readlinkSync(path)) : readFileSync(path)];
      }),
  );
}

determinism('should write byte-identical files into two empty folders from the same inputs, the id carrying the data\'s time', async () => {
  // The run's shared build of the fixture (made by another process) against one made here.
  const tree = await builtTree();
  const other = join(tree.root, 'elsewhere');
  const first = { buildId: readlinkSync(join(tree.out, 'current')) };
  const second = await build(tree, { outDir: other });
  assert.is(second.buildId, first.buildId);
  const [a, b] = [filesOf(tree.out), filesOf(other)];
  assert.equal([...b.keys()].sort(), [...a.keys()].sort());
  for (const [path, bytes] of a) assert.ok(bytes.equals(b.get(path)!), `${path} differs`);
  const manifest = JSON.parse(a.get(join(first.buildId, MANIFEST_FILE))!.toString('utf8')) as Manifest;
  assert.is(manifest.built_at, manifest.as_of, 'the build\'s time is the data\'s');
  assert.ok(first.buildId.startsWith(`${manifest.as_of.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-`), first.buildId);
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should take the build\'s time from SOURCE_DATE_EPOCH when it is set, and refuse one that is not whole seconds', async () => {
  const tree = fixtureTree();
  const env = (value: string) => ({ ...process.env, SOURCE_DATE_EPOCH: value });
  // The options as the command reads them, built in this process (a build command of its own cost
  // 4 s of CPU); the refusal below is the command's, run as a process.
  const options = parseBuildArgs(['--data', tree.data, '--out', tree.out, '--quiet', '--gzip-level', '1', '--brotli-level', '1'], env('1767225600'));
  assert.ok(typeof options === 'object');
  await runBuild(options);
  const id = readlinkSync(join(tree.out, 'current'));
  assert.match(id, /^20260101T000000Z-[0-9a-f]{8}$/);
  assert.is((JSON.parse(readFileSync(join(tree.out, id, MANIFEST_FILE), 'utf8')) as Manifest).built_at, '2026-01-01T00:00:00.000Z');
  const refused = spawnSync(process.execPath, ['--import', 'tsx', 'build/main.ts', '--data', tree.data, '--out', tree.out, '--force'], { cwd: ROOT, encoding: 'utf8', env: env('yesterday') });
  assert.is(refused.status, 2);
  assert.match(refused.stderr, /^SOURCE_DATE_EPOCH must be whole seconds since 1970, got "yesterday"/);
  rmSync(tree.root, { recursive: true, force: true });
});

determinism('should keep the build made current last, not the one whose id sorts last', async () => {
  // Ids carry the data's time: a build of older data (here, an earlier --as-of) sorts first by name.
  const tree = fixtureTree();
  const a = await build(tree, { asOf: '2026-11-20' });
  const b = await build(tree, { asOf: '2026-11-10' });
  assert.ok(b.buildId < a.buildId, `${b.buildId} sorts before ${a.buildId}`);
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current').sort(), [b.buildId, a.buildId]);
  const c = await build(tree, { asOf: '2026-11-15' });
  assert.equal(readdirSync(tree.out).filter((n) => n !== 'current').sort(), [b.buildId, c.buildId].sort(), 'the previous current (b) is kept, a is pruned');
  rmSync(tree.root, { recursive: true, force: true });
});

determinism.run();

const bodies = suite('the bodies written');
let tree: Tree;
let snap: ReturnType<typeof readSnapshot>;
bodies.before(async () => {
  tree = fixtureTree();
  snap = readSnapshot((await build(tree, { pageSize: 3 })).snapshotDir);
});
bodies.after(() => rmSync(tree.root, { recursive: true, force: true }));

function walkKeys(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => walkKeys(v, into));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) into.add(k) && walkKeys(v, into);
  return into;
}

bodies('should decode gzip and br variants to the identity body', () => {
  for (const key of Object.keys(snap.entries).filter((_, i) => i % 7 === 0)) {
    assert.equal(gunzipSync(snap.variant(key, 1)), snap.variant(key, 0), key);
    assert.equal(brotliDecompressSync(snap.variant(key, 2)), snap.variant(key, 0), key);
  }
});

bodies('should keep every Pro-only and detail-only key out of Free bodies', () => {
  const forbidden = ['reasoning_model', 'platform_intelligence_index_token_counts', 'context_window_tokens', 'parameters', 'modalities', 'licensing', 'weights_hub_url', 'router_api_id', 'price_1m_blended_3_to_1', 'price_1m_blended_7_to_2_to_1', 'country', 'hle', 'gpqa_diamond', 'input_cost', 'evaluation_token_counts', 'platform_omniscience_breakdown', 'platform_openness_index_breakdown', 'providers'];
  const freeKeys = Object.keys(snap.entries).filter((k) => k.startsWith('language.models.free '));
  assert.ok(freeKeys.length > 0);
  for (const key of freeKeys) {
    const keys = walkKeys(snap.json(key));
    for (const f of forbidden) assert.not.ok(keys.has(f), `${key} has ${f}`);
    for (const k of keys) assert.not.ok(/^(percentile|quartile)_/.test(k), `${key} has ${k}`);
  }
});

bodies('should put every model on exactly one page, in the documented order', () => {
  const models = JSON.parse(readFileSync(join(tree.data, 'language-models.json'), 'utf8')) as { id: string }[];
  for (const [prefix, tier] of [['language.models.free', 'free'], ['language.models', 'pro']]) {
    const items: { id: string; name: string; evaluations: { platform_intelligence_index: number | null } }[] = [];
    let page = 1;
    for (;;) {
      const key = prefix === 'language.models' ? `${prefix} ${tier} prompt_type=long page=${page}` : `${prefix} ${tier} page=${page}`;
      if (!snap.entries[key]) break;
      const body = snap.json(key);
      assert.equal(body.pagination, { page, page_size: 3, total_pages: Math.ceil(models.length / 3), has_more: page < Math.ceil(models.length / 3) });
      items.push(...body.data);
      page++;
    }
    assert.equal(items.map((m) => m.id).sort(), models.map((m) => m.id).sort(), 'every model exactly once');
    for (let i = 1; i < items.length; i++) {
      const [a, b] = [items[i - 1], items[i]];
      const [x, y] = [a.evaluations.platform_intelligence_index, b.evaluations.platform_intelligence_index];
      const ordered = x !== null && y !== null ? x > y || (x === y && (a.name < b.name || (a.name === b.name && a.id < b.id))) : y === null ? x !== null || a.name < b.name || (a.name === b.name && a.id < b.id) : false;
      assert.ok(ordered, `${a.name} (${x}) before ${b.name} (${y})`);
    }
    assert.ok(items.some((m) => m.evaluations.platform_intelligence_index === null), 'the fixture has unevaluated models, so nulls-last is exercised');
  }
});

bodies('should fill the empty-page template into a valid past-the-end page', () => {
  const { before, after } = snap.manifest.empty_pages['language.models pro prompt_type=long page=*'];
  const body = JSON.parse(`${before}99${after}`);
  assert.equal(body.data, []);
  assert.is(body.pagination.page, 99);
  assert.is(body.pagination.has_more, false);
});

bodies('should change performance and not prices with the prompt type', () => {
  const slug = JSON.parse(readFileSync(join(tree.data, 'language-models.json'), 'utf8'))[0].slug;
  const long = snap.json(`language.model commercial prompt_type=long slug=${slug}`).data;
  const wide = snap.json(`language.model commercial prompt_type=100k slug=${slug}`).data;
  assert.equal(wide.pricing, long.pricing);
  assert.equal(wide.providers.map((p: { pricing: unknown }) => p.pricing), long.providers.map((p: { pricing: unknown }) => p.pricing));
});

bodies.run();
