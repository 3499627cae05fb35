// Both packages publish dist/ only (package.json "files"). Every source map in opgen's build must resolve
// there: each source it names is either shipped or carried inside the map (sourcesContent). The runtime's
// bundle has none (runtime/build/bundle.mjs says why).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect, it } from 'vitest';

function maps(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js.map'))
    .map((e) => join(e.parentPath, e.name));
}

function jsFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => join(e.parentPath, e.name));
}

// An operator runs with --enable-source-maps; a map named by the runtime's bundle would be loaded and
// decoded in every operator (2.3 MB of idle RSS, docs/runtime-performance.md), so it names none.
it('@opgen/runtime: the bundle names no source map and ships none', () => {
  const dist = join(process.cwd(), 'runtime', 'dist');
  if (!existsSync(dist)) throw new Error(`${dist} is missing; run \`npm run build\` first`);
  const js = jsFiles(dist);
  expect(js.length).toBeGreaterThan(10);
  expect(js.filter((f) => readFileSync(f, 'utf8').includes('//# sourceMappingURL=')).map((f) => relative(dist, f))).toEqual([]);
  expect(maps(dist).map((f) => relative(dist, f))).toEqual([]);
});

it('opgen: every source map resolves inside the published files', () => {
  const root = process.cwd();
  const files = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files: string[] }).files;
  const dist = join(root, 'dist');
  if (!existsSync(dist)) throw new Error(`${dist} is missing; run \`npm run build\` first`);
  const found = maps(dist);
  expect(found.length).toBeGreaterThan(10);
  const unresolved: string[] = [];
  for (const file of found) {
    const map = JSON.parse(readFileSync(file, 'utf8')) as { sources: string[]; sourcesContent?: Array<string | null> };
    map.sources.forEach((source, i) => {
      const target = relative(root, join(dirname(file), source));
      const shipped = files.some((f) => target === f || target.startsWith(`${f}/`)) && existsSync(join(root, target));
      // A map whose source no longer exists is left over from an older build of this checkout, not ours.
      const current = existsSync(join(root, target));
      if (current && !shipped && typeof map.sourcesContent?.[i] !== 'string') unresolved.push(`${relative(root, file)} → ${source}`);
    });
  }
  expect(unresolved.slice(0, 5)).toEqual([]);
});
