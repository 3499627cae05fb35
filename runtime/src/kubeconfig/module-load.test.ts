// The point of loadKubeConfig(): an operator that imports @opgen/runtime, loads its kubeconfig and
// creates a manager never loads @kubernetes/client-node (whose KubeConfig pulls in the generated API,
// dist/gen, ~65 MB of RSS). Checked in a child process with a module-load hook, on the built runtime
// (runtime/dist, from `npm run build`), the way the CLI test checks that --help loads no ts-morph.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const runtimeDist = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const plugin = fileURLToPath(new URL('./testdata/exec-plugin.mjs', import.meta.url));
// Logs every module the child loads to $OPGEN_LOAD_LOG (shared with the CLI's lazy-loading test).
const moduleLog = fileURLToPath(new URL('../../../test/module-log/register.mjs', import.meta.url));
let work: string;

beforeAll(() => {
  if (!existsSync(runtimeDist)) throw new Error(`${runtimeDist} is missing; run \`npm run build\` first`);
  work = mkdtempSync(join(tmpdir(), 'opgen-kubeconfig-load-'));
  writeFileSync(join(work, 'token'), 'exec-t0ken');
  // A bare operator: import the runtime, load the kubeconfig, create a manager, send one request's
  // worth of credentials (applyToHTTPSOptions), exit.
  writeFileSync(
    join(work, 'operator.mjs'),
    [
      `const { createManager, loadKubeConfig, silentLogger } = await import(${JSON.stringify(runtimeDist)});`,
      'const kc = await loadKubeConfig();',
      'await kc.applyToHTTPSOptions({});',
      'const mgr = await createManager({ logger: silentLogger() });',
      "console.log('server', mgr.kubeConfig.getCurrentCluster()?.server);",
    ].join('\n'),
  );
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function kubeconfig(name: string, user: object, format: 'yaml' | 'json' = 'yaml'): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'config');
  const config = {
    clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:6443' } }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
    'current-context': 'x',
  };
  writeFileSync(file, format === 'json' ? JSON.stringify(config, null, 2) : stringify(config));
  return file;
}

function loadedModules(kubeconfigFile: string): { stdout: string; modules: string[] } {
  const log = join(work, `load-${Math.random().toString(36).slice(2)}.log`);
  writeFileSync(log, '');
  const r = spawnSync(process.execPath, ['--import', moduleLog, join(work, 'operator.mjs')], {
    cwd: work,
    env: { ...process.env, OPGEN_LOAD_LOG: log, KUBECONFIG: kubeconfigFile, HOME: work },
    encoding: 'utf8',
  });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return { stdout: r.stdout, modules: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

const clientNode = /\/@kubernetes\/client-node\//;
const clientNodeGen = /\/@kubernetes\/client-node\/dist\/gen\//;

describe('module loading', () => {
  it.each([
    ['a token user', () => ({ token: 't' })],
    ['an exec plugin user', () => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never', command: process.execPath, args: [plugin], env: [{ name: 'PLUGIN_TOKEN_FILE', value: join(work, 'token') }] } })],
  ])('importing @opgen/runtime, loadKubeConfig() and createManager() with %s load no @kubernetes/client-node', (name, user) => {
    const { stdout, modules } = loadedModules(kubeconfig(name.replace(/\W/g, '-'), user()));
    expect(stdout).toBe('server https://127.0.0.1:6443\n');
    expect(modules.some((m) => m.endsWith('/runtime/dist/index.js'))).toBe(true); // the hook saw the runtime load
    expect(modules.some((m) => m.includes('/node_modules/yaml/'))).toBe(true);
    expect(modules.filter((m) => clientNode.test(m))).toEqual([]);
  });

  it('a JSON kubeconfig file (as envtest writes) is read without loading yaml', () => {
    const { stdout, modules } = loadedModules(kubeconfig('json', { token: 't' }, 'json'));
    expect(stdout).toBe('server https://127.0.0.1:6443\n');
    expect(modules.some((m) => m.endsWith('/runtime/dist/index.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/node_modules/yaml/'))).toEqual([]);
  });

  it('an operator in a pod (service account, no kubeconfig file) loads no yaml', () => {
    const sa = join(work, 'serviceaccount');
    mkdirSync(sa, { recursive: true });
    writeFileSync(join(sa, 'token'), 'sa-t0ken');
    writeFileSync(
      join(work, 'in-cluster.mjs'),
      [
        `const { createManager, loadKubeConfig, silentLogger } = await import(${JSON.stringify(runtimeDist)});`,
        `const kc = await loadKubeConfig({ serviceAccountDir: ${JSON.stringify(sa)} });`,
        'const mgr = await createManager({ kubeConfig: kc, logger: silentLogger() });',
        "console.log('server', mgr.kubeConfig.getCurrentCluster()?.server);",
      ].join('\n'),
    );
    const log = join(work, 'load-in-cluster.log');
    writeFileSync(log, '');
    const env: NodeJS.ProcessEnv = { ...process.env, OPGEN_LOAD_LOG: log, HOME: work, KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' };
    delete env.KUBECONFIG;
    const r = spawnSync(process.execPath, ['--import', moduleLog, join(work, 'in-cluster.mjs')], { cwd: work, env, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('server https://10.0.0.1:443\n');
    const modules = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((m) => m.endsWith('/runtime/dist/index.js'))).toBe(true);
    expect(modules.filter((m) => m.includes('/node_modules/yaml/'))).toEqual([]);
  });

  it('a legacy auth-provider user falls back to client-node, which loads dist/gen (the check above can fail)', () => {
    const { stdout, modules } = loadedModules(kubeconfig('auth-provider', { 'auth-provider': { name: 'oidc', config: { 'id-token': 'x', 'client-id': 'y', 'idp-issuer-url': 'https://issuer.example.com' } } }));
    expect(stdout).toBe('server https://127.0.0.1:6443\n');
    expect(modules.some((m) => clientNodeGen.test(m))).toBe(true);
  });
});
