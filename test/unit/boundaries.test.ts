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

rules('should see the imports it checks', () => {
  assert.ok(importsOf('build/bodies.ts').includes('src/shared/routes.ts'));
  assert.ok(importsOf('src/server.ts').includes('src/policy.ts'));
});

rules.run();
