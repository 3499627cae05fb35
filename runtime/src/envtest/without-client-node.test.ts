// A project without @kubernetes/client-node (an optional peer of the runtime) uses envtest as the
// scaffold does: the built runtime is copied into a folder where client-node cannot be resolved, and a
// child process starts a test environment, lists namespaces through createClient(env.kubeConfig) and
// writes the kubeconfig file; makeApiClient, which needs client-node, fails with one line naming it.
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, expect, it } from 'vitest';

const runtimeRoot = fileURLToPath(new URL('../../', import.meta.url));
const repoModules = join(runtimeRoot, '..', 'node_modules');
const work = mkdtempSync(join(tmpdir(), 'opgen-envtest-no-client-node-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const child = `
import { createClient, groupVersion } from '@opgen/runtime';
import { startTestEnv } from '@opgen/runtime/envtest';
import { readFileSync } from 'node:fs';
const env = await startTestEnv();
try {
  const namespaces = await createClient(env.kubeConfig).list(groupVersion('', 'v1').kind('Namespace', { namespaced: false }));
  console.log('namespaces', namespaces.items.map((n) => n.metadata.name).includes('default'));
  console.log('kubeconfig', JSON.parse(readFileSync(env.kubeconfigPath, 'utf8'))['current-context']);
  try { env.kubeConfig.makeApiClient(class {}); } catch (err) { console.log('asked', err.message); }
} finally {
  await env.stop();
}
`;

it('startTestEnv, createClient(env.kubeConfig) and the kubeconfig file work without @kubernetes/client-node', async () => {
  expect(existsSync(join(runtimeRoot, 'dist/envtest/index.js')), 'runtime/dist is missing: npm run build -w @opgen/runtime').toBe(true);
  const pkg = join(work, 'node_modules', '@opgen', 'runtime');
  mkdirSync(dirname(pkg), { recursive: true });
  cpSync(join(runtimeRoot, 'dist'), join(pkg, 'dist'), { recursive: true });
  cpSync(join(runtimeRoot, 'package.json'), join(pkg, 'package.json'));
  // The runtime's one dependency; client-node is deliberately absent.
  symlinkSync(join(repoModules, 'yaml'), join(work, 'node_modules', 'yaml'), 'dir');
  writeFileSync(join(work, 'package.json'), JSON.stringify({ name: 'no-client-node', type: 'module', private: true }));
  writeFileSync(join(work, 'check.mjs'), child);
  const gone = await execa(process.execPath, ['--input-type=module', '-e', "await import('@kubernetes/client-node')"], { cwd: work, reject: false });
  expect(gone.stderr).toContain("Cannot find package '@kubernetes/client-node'");

  const r = await execa(process.execPath, ['check.mjs'], { cwd: work, reject: false, all: true, env: { ...process.env, KUBEBUILDER_ASSETS: process.env.KUBEBUILDER_ASSETS } });
  expect(r.exitCode, r.all).toBe(0);
  expect(r.stdout.split('\n')).toEqual([
    'namespaces true',
    'kubeconfig envtest',
    'asked envtest: env.kubeConfig.makeApiClient() needs @kubernetes/client-node: npm install --save-dev @kubernetes/client-node (createClient(env.kubeConfig) from @opgen/runtime needs nothing more)',
  ]);
}, 120_000);
