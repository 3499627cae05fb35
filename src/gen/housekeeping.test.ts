// Housekeeping after `opgen generate crd`: CRD files of kinds that are gone are deleted (only those
// opgen wrote), and a CRD too large for client-side apply is reported.
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { generateCommand, type GenerateOptions } from './command.js';

const fixture = join(import.meta.dirname, '../../test/fixtures/generate/memcached');
const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

async function run(cwd: string, o: Partial<GenerateOptions> = {}): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const code = await generateCommand({ cwd, targets: ['crd'], check: false, dryRun: false, ...o }, (l) => lines.push(l));
  return { code, lines };
}

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), 'opgen-housekeeping-'));
  temps.push(dir);
  cpSync(fixture, dir, { recursive: true });
  return dir;
}

describe('stale CRD files', () => {
  it('deletes the CRD of a removed kind (DELETE in --dry-run, left over in --check) and leaves files opgen did not write', async () => {
    const dir = project();
    await run(dir);
    const bases = join(dir, 'config/crd/bases');
    const written = readFileSync(join(bases, 'cache.example.com_memcacheds.yaml'), 'utf8');
    // As if an earlier run had generated a kind that has since been removed.
    writeFileSync(join(bases, 'cache.example.com_oldkinds.yaml'), written.replaceAll('memcached', 'oldkind'));
    writeFileSync(join(bases, 'handwritten.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mine\n');

    const dry = await run(dir, { dryRun: true });
    expect(dry.lines).toEqual(['DELETE config/crd/bases/cache.example.com_oldkinds.yaml']);
    expect(existsSync(join(bases, 'cache.example.com_oldkinds.yaml'))).toBe(true);

    const check = await run(dir, { check: true });
    expect(check.code).toBe(1);
    expect(check.lines).toContain('left over: config/crd/bases/cache.example.com_oldkinds.yaml (run opgen generate crd)');

    expect((await run(dir)).lines).toEqual(['DELETE config/crd/bases/cache.example.com_oldkinds.yaml']);
    expect(existsSync(join(bases, 'cache.example.com_oldkinds.yaml'))).toBe(false);
    expect(existsSync(join(bases, 'handwritten.yaml'))).toBe(true);
    expect(readFileSync(join(bases, 'cache.example.com_memcacheds.yaml'), 'utf8')).toBe(written);
  });
});

describe('CRDs too large for client-side apply', () => {
  it('warns with the size and what to do, and still writes the CRD', async () => {
    const dir = project();
    const types = join(dir, 'src/api/v1alpha1/memcached-types.ts');
    const long = Array.from({ length: 3000 }, (_, i) => `   * Line ${i} of a very long description that makes the CRD larger than kubectl apply can annotate.`).join('\n');
    writeFileSync(types, readFileSync(types, 'utf8').replace(/export interface MemcachedSpec/, `/**\n${long}\n   */\nexport interface MemcachedSpec`));
    const { code, lines } = await run(dir);
    expect(code).toBe(0);
    const warning = lines.find((l) => l.startsWith('warning: '));
    expect(warning).toMatch(/^warning: config\/crd\/bases\/cache\.example\.com_memcacheds\.yaml: the CRD is \d+ bytes, over the 262144-byte annotation kubectl apply writes \(client-side apply will fail; use kubectl apply --server-side, or shorten descriptions with crd:maxDescLen\)$/);
    expect(existsSync(join(dir, 'config/crd/bases/cache.example.com_memcacheds.yaml'))).toBe(true);
  });

  it('says nothing about a CRD under the limit', async () => {
    expect((await run(project())).lines.filter((l) => l.startsWith('warning'))).toEqual([]);
  });
});
