// Both packages publish dist/ only (package.json "files"). Every source map in the build must resolve
// there: each source it names is either shipped or carried inside the map (sourcesContent).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { expect, it } from 'vitest';

function maps(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js.map'))
    .map((e) => join(e.parentPath, e.name));
}

for (const pkg of ['.', 'runtime']) {
  it(`${pkg === '.' ? 'opgen' : '@opgen/runtime'}: every source map resolves inside the published files`, () => {
    const root = join(process.cwd(), pkg);
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
}
