/**
 * The house rule on imports: the server stays small and bundles alone, the build never reaches
 * into it. build/ may import from src/ only what both sides share, gathered in src/shared/;
 * src/shared/ imports nothing else of src/; src/ never imports build/ or scripts/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

const ROOT = new URL('../../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every relative module a file imports (type-only imports included), as a path from the root. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)].map((m) => relative(ROOT, resolve(ROOT, dirname(file), m[1])));
}

function violations(dir: string, allowed: (target: string) => boolean): string[] {
  return sources(dir).flatMap((file) => importsOf(file).filter((target) => !allowed(target)).map((target) => `${file} imports ${target}`));
}

const rules = suite('import boundaries');

rules('should let build/ import from src/ only the shared modules', () => {
  assert.equal(violations('build', (t) => !t.startsWith('src/') || t.startsWith('src/shared/')), []);
});

rules('should keep src/shared/ free of the rest of the server', () => {
  assert.equal(violations('src/shared', (t) => t.startsWith('src/shared/')), []);
});

rules('should never let src/ import build/ or scripts/', () => {
  assert.equal(violations('src', (t) => !t.startsWith('build/') && !t.startsWith('scripts/')), []);
});

/** Import circles among these files (type-only imports included), each as a path of files. */
function circles(files: string[]): string[] {
  const graph = new Map(files.map((f) => [f, importsOf(f).filter((t) => files.includes(t))]));
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
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  return found;
}

rules('should have no import circles in build/, src/ or scripts/, type-only ones included', () => {
  assert.equal(circles([...sources('build'), ...sources('src'), ...sources('scripts')]), []);
  assert.equal(circles(['test/unit/boundaries.test.ts']), [], 'a file alone makes no circle');
});

rules('should see the imports it checks', () => {
  assert.ok(importsOf('build/shape/bodies.ts').includes('src/shared/routes.ts'));
  assert.ok(importsOf('src/app.ts').includes('src/policy.ts'));
});

rules.run();
