/**
 * The house rules on imports, folder by folder. The server stays small and bundles alone, and the
 * build never reaches into it: build/ may import from src/ only what both sides share
 * (src/shared/), and src/ never imports build/ or scripts/. Inside src/, each folder imports only
 * the folders below it: lib/ nothing of ours; http/ nothing of keys/, quota/, critpt/ (or any
 * state); storage (keys/, quota/, redis/) nothing of http/; keys/ and quota/ nothing of each other,
 * only of state/ below both (the key record, the counter's interface, the errors they share), and
 * key-admin/ (the keys command's and the admin listener's view of a store) may use both; and the
 * request pipeline at the root of src/ is imported by nothing but itself. Every folder has a rule,
 * and no import circle exists anywhere in the repository.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { codeFiles, REPOSITORY_ROOT as ROOT } from '../helpers/repository-files.ts';


/** What each folder may import (paths from the repository root; a folder ends with /). The most specific rule applies. */
const RULES: Record<string, readonly string[]> = {
  'src/': ['src/'],
  'src/lib/': [],
  'src/shared/': ['src/shared/'],
  'src/http/': ['src/http/', 'src/lib/', 'src/shared/'],
  'src/redis/': ['src/redis/', 'src/lib/'],
  // What keys and quota both need (the key record, the counter's interface, the state errors): below both.
  'src/state/': ['src/state/', 'src/redis/', 'src/lib/', 'src/shared/'],
  // The two halves of the state: neither imports the other (a store is added in each, beside its pair).
  'src/keys/': ['src/keys/', 'src/state/', 'src/redis/', 'src/lib/', 'src/shared/'],
  'src/quota/': ['src/quota/', 'src/state/', 'src/redis/', 'src/lib/', 'src/shared/'],
  // Key administration (the keys command, the admin listener): changes the keys, reads the counts.
  'src/key-admin/': ['src/key-admin/', 'src/keys/', 'src/quota/', 'src/state/', 'src/redis/', 'src/lib/',
    'src/shared/'],
  'src/snapshot/': ['src/snapshot/', 'src/lib/', 'src/shared/'],
  // The MCP endpoint: JSON-RPC over the public port's toolkit; its tools call the data routes over HTTP.
  'src/mcp/': ['src/mcp/', 'src/http/', 'src/lib/', 'src/shared/'],
  // Pulling published builds into the snapshot folder: the snapshot store then serves them as any build.
  'src/pull/': ['src/pull/', 'src/lib/', 'src/shared/'],
  // The admin listener: the keys command's store and changes, the counter and the served snapshot, over HTTP.
  'src/admin/': [
    'src/admin/',
    'src/key-admin/',
    'src/keys/',
    'src/quota/',
    'src/state/',
    'src/redis/',
    'src/snapshot/',
    'src/http/',
    'src/lib/',
    'src/shared/',
  ],
  'src/critpt/': ['src/critpt/', 'src/http/', 'src/quota/', 'src/state/', 'src/lib/', 'src/shared/'],
  'build/': ['build/', 'src/shared/'],
  // The build's stages: load and derive know nothing of shaping, shaping nothing of packing.
  'build/load/': ['build/load/', 'build/schemas/', 'build/types.ts', 'build/fields.ts', 'build/problems.ts', 'build/columns.ts', 'src/shared/'],
  'build/derive/': ['build/derive/', 'build/schemas/media.ts', 'build/types.ts', 'build/fields.ts', 'build/problems.ts', 'build/columns.ts', 'build/collections.ts', 'src/shared/'],
  'build/shape/': ['build/shape/', 'build/derive/', 'build/schemas/', 'build/types.ts', 'build/fields.ts', 'build/columns.ts', 'build/collections.ts', 'src/shared/'],
  'build/schemas/': ['build/schemas/', 'build/fields.ts', 'src/shared/'],
  'build/pack/': ['build/pack/', 'src/shared/'],
  'build/publish/': ['build/publish/', 'src/shared/'],
  // The history of changes: the lists as the list routes shape them, diffed and replayed.
  'build/history/': ['build/history/', 'build/shape/', 'src/shared/'],
};

/** The pipeline at the root of src/ (app.ts and the stages beside it) and the entry points: only the root imports them. */
const SRC_ROOT_ONLY = (target: string) => !/^src\/[^/]+\.ts$/.test(target);

/** Every relative module a text imports (static, re-exported or dynamic; type-only included), resolved against `file`. */
function importsIn(file: string, text: string): string[] {
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g), ...text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)];
  return specs.map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1])));
}

function importsOf(file: string): string[] {
  return importsIn(file, readFileSync(join(ROOT, file), 'utf8'));
}

/** The rule of the most specific folder holding `file`, or undefined when no rule covers it. */
function ruleOf(file: string): [string, readonly string[]] | undefined {
  const folders = Object.keys(RULES).filter((folder) => file.startsWith(folder));
  const folder = folders.sort((a, b) => b.length - a.length)[0];
  return folder === undefined ? undefined : [folder, RULES[folder]];
}

function violations(files: string[]): string[] {
  return files.flatMap((file) => {
    const [folder, may] = ruleOf(file)!;
    return importsOf(file)
      .filter((target) => !may.some((allowed) => target === allowed || (allowed.endsWith('/') && target.startsWith(allowed))))
      .map((target) => `${file} imports ${target} (${folder} may import ${may.join(', ') || 'nothing of ours'})`);
  });
}

/** Import circles in a graph (file -> the files it imports), each as a path of files. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]) => {
    state.set(file, 'open');
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' -> '));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file, [file]);
  return found;
}

const SRC = codeFiles('src');
const BUILD = codeFiles('build');

const rules = suite('import boundaries');

rules('should have a rule for every folder of src/ and build/', () => {
  const uncovered = [...SRC, ...BUILD].filter((file) => ruleOf(file) === undefined);
  assert.equal(uncovered, []);
  const folders = new Set([...SRC, ...BUILD].map((file) => `${dirname(file)}/`));
  const ruled = [...folders].filter((folder) => !Object.hasOwn(RULES, folder));
  assert.equal(ruled, [], 'a new folder gets its own rule');
});

rules('should keep every folder of src/ and build/ to what it may import', () => {
  assert.equal(violations([...SRC, ...BUILD]), []);
});

rules('should keep keys/ and quota/ apart, with state/ below both', () => {
  const across = (from: string, to: string[]) =>
    SRC.filter((file) => file.startsWith(from)).flatMap((file) =>
      importsOf(file)
        .filter((target) => to.some((folder) => target.startsWith(folder)))
        .map((target) => `${file} imports ${target}`),
    );
  assert.equal(across('src/keys/', ['src/quota/', 'src/key-admin/']), [], 'keys/ imports nothing of quota/');
  assert.equal(across('src/quota/', ['src/keys/', 'src/key-admin/']), [], 'quota/ imports nothing of keys/');
  assert.equal(across('src/state/', ['src/keys/', 'src/quota/', 'src/key-admin/']), [], 'state/ is below both');
  const usesState = (from: string) =>
    SRC.some((file) => file.startsWith(from) && importsOf(file).some((target) => target.startsWith('src/state/')));
  assert.ok(usesState('src/keys/') && usesState('src/quota/'), 'both build on state/');
});

rules('should let only the root of src/ import the pipeline and the entry points', () => {
  const outside = SRC.filter((file) => file.split('/').length > 2);
  assert.equal(outside.flatMap((file) => importsOf(file).filter((t) => !SRC_ROOT_ONLY(t)).map((t) => `${file} imports ${t}`)), []);
});

rules('should have no import circles anywhere in the repository, type-only ones included', () => {
  const files = [...SRC, ...BUILD, ...codeFiles('scripts'), ...codeFiles('test')];
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));
  assert.equal(circles(graph), []);
});

rules('should find a circle when there is one', () => {
  const graph = new Map([
    ['a.ts', ['b.ts']],
    ['b.ts', ['c.ts']],
    ['c.ts', ['a.ts']],
    ['d.ts', ['a.ts']],
  ]);
  assert.equal(circles(graph), ['a.ts -> b.ts -> c.ts -> a.ts']);
  assert.equal(circles(new Map([['a.ts', ['b.ts']], ['b.ts', []]])), []);
});

rules('should see static, re-exported, type-only and dynamic imports, across lines', () => {
  const text = "import type { A } from './a.ts';\nimport {\n  B,\n} from '../lib/b.ts';\nexport { C } from './c.ts';\nconst { main } = await import('./main.ts');\nimport { x } from 'node:fs';";
  assert.equal(importsIn('src/http/x.ts', text), ['src/http/a.ts', 'src/lib/b.ts', 'src/http/c.ts', 'src/http/main.ts']);
  assert.ok(importsOf('build/shape/bodies.ts').includes('src/shared/routes.ts'));
  assert.ok(importsOf('src/app.ts').includes('src/policy.ts'));
});

rules('should report an import a folder may not make', () => {
  const [folder, may] = ruleOf('src/http/router.ts')!;
  assert.is(folder, 'src/http/');
  assert.not.ok(may.some((allowed) => 'src/quota/file-quota.ts'.startsWith(allowed)), 'http/ may not import quota/');
  const keys = ruleOf('src/keys/redis-keys.ts')![1];
  assert.not.ok(keys.some((allowed) => 'src/quota/redis-quota.ts'.startsWith(allowed)), 'keys/ may not import quota/');
  const quota = ruleOf('src/quota/redis-quota.ts')![1];
  assert.not.ok(quota.some((allowed) => 'src/keys/redis-keys.ts'.startsWith(allowed)), 'quota/ may not import keys/');
  const state = ruleOf('src/state/errors.ts')![1];
  const above = ['src/keys/record.ts', 'src/quota/window.ts'];
  assert.not.ok(state.some((allowed) => above.some((file) => file.startsWith(allowed))), 'state/ is below both');
});

rules.run();
