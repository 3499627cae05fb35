// @opgen/runtime/helm is an entry of its own so operators without a chart pay nothing for it: importing
// the main entry must load the same files as before it existed. A static import of shared runtime code
// from the helm entry made the bundler split that code out of dist/index.js into a chunk both load.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dist = fileURLToPath(new URL('../../dist/', import.meta.url));
const moduleLog = fileURLToPath(new URL('../../../test/module-log/register.mjs', import.meta.url));

describe('the helm entry in the bundle', () => {
  let work: string;
  beforeAll(() => {
    if (!existsSync(join(dist, 'helm', 'index.js'))) throw new Error(`${dist}helm/index.js is missing; run \`npm run build -w @opgen/runtime\` first`);
    work = mkdtempSync(join(tmpdir(), 'opgen-helm-bundle-'));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  const loadedBy = (entry: string): string[] => {
    const log = join(work, `${entry.replaceAll('/', '_')}.txt`);
    const r = spawnSync(process.execPath, ['--import', moduleLog, '--input-type=module', '-e', `await import(${JSON.stringify(join(dist, entry))});`],
      { encoding: 'utf8', env: { ...process.env, OPGEN_LOAD_LOG: log } });
    expect(r.status, r.stderr).toBe(0);
    const urls = readFileSync(log, 'utf8').split('\n').filter((u) => u.startsWith('file:') && !u.includes('/test/module-log/'));
    return [...new Set(urls.map((u) => fileURLToPath(u)).filter((f) => f.startsWith(dist)).map((f) => f.slice(dist.length)))].sort();
  };

  it('the main entry loads no helm code and no chunk the helm entry shares', () => {
    const main = loadedBy('index.js');
    expect(main.filter((f) => f.startsWith('helm/'))).toEqual([]);
    const helmImports = [...readFileSync(join(dist, 'helm', 'index.js'), 'utf8').matchAll(/^import .* from "\.\.\/(chunks\/[^"]+)";$/gm)].map((m) => m[1]);
    expect(helmImports).toEqual([]);
  });

  it('the helm entry reaches the runtime through the main entry, when first used', () => {
    const helm = loadedBy('helm/index.js');
    expect(helm).toEqual(['helm/index.js']);
    expect(readFileSync(join(dist, 'helm', 'index.js'), 'utf8')).toContain('import("../index.js")');
  });
});
