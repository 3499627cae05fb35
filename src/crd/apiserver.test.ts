// The CRDs opgen writes, judged by a real kube-apiserver (envtest): accepted by server-side apply,
// described by `kubectl explain`, and enforcing the markers on objects.
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventually, startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCommand } from '../gen/command.js';

const fixtures = join(import.meta.dirname, '../../test/fixtures/generate');
let env: TestEnv;
let work: string;
const crdFiles: string[] = [];

async function kubectl(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await execa('kubectl', ['--kubeconfig', env.kubeconfigPath, ...args], { reject: false });
  return { exitCode: r.exitCode ?? -1, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'opgen-crd-apiserver-'));
  for (const name of ['memcached', 'kitchen-sink', 'multi-version']) {
    const dir = join(work, name);
    cpSync(join(fixtures, name), dir, { recursive: true });
    await generateCommand({ cwd: dir, targets: ['crd'], check: false, dryRun: false }, () => {});
    const bases = join(dir, 'config/crd/bases');
    for (const f of readdirSync(bases)) crdFiles.push(join(bases, f));
  }
  env = await startTestEnv();
});

afterAll(async () => {
  await env?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('generated CRDs on a real API server', () => {
  it('are accepted by server-side apply (dry run, then for real) and become established', async () => {
    expect(crdFiles.length).toBe(3);
    for (const file of crdFiles) {
      const dry = await kubectl('apply', '--server-side', '--dry-run=server', '-f', file);
      expect(dry.stderr).toBe('');
      expect(dry.exitCode).toBe(0);
      const real = await kubectl('apply', '--server-side', '-f', file);
      expect(real.exitCode).toBe(0);
    }
    // kubectl wait fails at once ("status.conditions accessor error") while a new CRD has no conditions yet.
    await eventually(
      async () => {
        const wait = await kubectl('wait', '--for=condition=Established', '--timeout=60s', 'crd/memcacheds.cache.example.com', 'crd/sinks.sink.example.com', 'crd/frigates.ships.example.com');
        expect(wait.stderr).toBe('');
        expect(wait.exitCode).toBe(0);
      },
      { timeoutMs: 60_000, intervalMs: 200 },
    );
  });

  it('kubectl explain shows the descriptions from the TypeScript comments', async () => {
    // The API server publishes a new CRD's OpenAPI a moment after it is established.
    const explain = (what: string, expected: string): Promise<string> =>
      eventually(
        async () => {
          const r = await kubectl('explain', what);
          expect(r.stdout).toContain(expected);
          return `${r.stdout}${r.stderr}`;
        },
        { timeoutMs: 30_000, intervalMs: 500 },
      );
    expect(await explain('memcacheds.spec.size', 'Size is the size')).toContain('Size is the size of the memcached deployment.\n    It has two lines.');
    const kind = await explain('sinks', 'kitchen sink');
    expect(kind).toContain('Sink is a kitchen sink.');
    expect(kind).not.toContain('This is dropped.');
  });

  it('enforces the markers: validation, CEL rules and defaults', async () => {
    const tooBig = join(work, 'too-big.yaml');
    writeFileSync(tooBig, 'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: m, namespace: default}\nspec: {image: x, size: 11, tags: []}\n');
    const rejected = await kubectl('apply', '--server-side', '--dry-run=server', '-f', tooBig);
    expect(rejected.exitCode).not.toBe(0);
    expect(rejected.stderr).toContain('spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10');
    expect(rejected.stderr).toContain('must not be empty');

    const ok = join(work, 'ok.yaml');
    writeFileSync(ok, 'apiVersion: cache.example.com/v1alpha1\nkind: Memcached\nmetadata: {name: m, namespace: default}\nspec: {size: 3}\n');
    const applied = await kubectl('apply', '--server-side', '--dry-run=server', '-o', 'jsonpath={.spec.image}', '-f', ok);
    expect(applied.stderr).toBe('');
    expect(applied.stdout).toBe('memcached:1.6');
  });
});
