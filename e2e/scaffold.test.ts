// The first ten minutes of a user, from the packed tarballs: init, two `create api` (one namespaced, one
// cluster-scoped), install, type-check with tsc, generate the manifests, render config/default with
// kubectl kustomize, and run the scaffolded controller tests against a real API server.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type Options } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, groupVersion } from '@opgen/runtime';
import { startTestEnv } from '@opgen/runtime/envtest';
import { parseAllDocuments } from 'yaml';
import { freePort, packPackages, repoRoot, unpackCli, waitFor } from './helpers.js';

const STEP = 600_000;

describe('scaffold end to end (packed tarballs)', () => {
  let work: string;
  let project: string;
  let tarballs: { opgen: string; runtime: string };
  /** The CLI from the opgen tarball (before the project has its own node_modules). */
  let packedCli: string;

  const run = (file: string, args: string[], options: Pick<Options, 'env' | 'extendEnv'> = {}) =>
    execa(file, args, { cwd: project, reject: false, all: true, env: { ...process.env, OPGEN_DEBUG: '1' }, ...options });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'opgen-e2e-'));
    tarballs = await packPackages(work);
    packedCli = await unpackCli(tarballs.opgen, work);
    project = join(work, 'memcached-operator');
    mkdirSync(project);
  }, STEP);

  afterAll(() => {
    if (work && process.env.OPGEN_E2E_KEEP !== '1') rmSync(work, { recursive: true, force: true });
  });

  it('packs only what users need', async () => {
    const { stdout } = await execa('tar', ['-tzf', tarballs.opgen]);
    const files = stdout.split('\n');
    expect(files).toEqual(expect.arrayContaining(['package/bin/opgen.js', 'package/dist/cli/main.js', 'package/templates/init/src/main.ts.hbs', 'package/package.json']));
    expect(files.filter((f) => f.startsWith('package/src/') || f.endsWith('.test.js'))).toEqual([]);
  });

  it('opgen init + create api (namespaced) + create api --namespaced=false', async () => {
    const steps = [
      ['init', '--domain', 'example.com', '--repo', 'github.com/example/memcached-operator', '--skip-install'],
      ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached'],
      ['create', 'api', '--group', 'cache', '--version', 'v1alpha1', '--kind', 'Policy', '--namespaced=false'],
      // A controller for a kind the project does not own, on the typed built-in kinds.
      ['create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false', '--controller'],
    ];
    for (const args of steps) {
      const r = await run(process.execPath, [packedCli, ...args]);
      expect(r.exitCode, `opgen ${args.join(' ')}\n${r.all}`).toBe(0);
    }
    expect(readFileSync(join(project, 'src/api/v1alpha1/policy-types.ts'), 'utf8')).toContain('+kubebuilder:resource:scope=Cluster');
    // The tutorial's reconcile step with typed kinds and helpers; tsc --strict and the linter check it below.
    copyFileSync(join(repoRoot, 'e2e/example/memcached-deployment.ts'), join(project, 'src/controller/memcached-deployment.ts'));
  }, STEP);

  it('installs the packed opgen and @opgen/runtime with the dev dependencies', async () => {
    const r = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarballs.opgen, tarballs.runtime]);
    expect(r.exitCode, r.all).toBe(0);
    expect(existsSync(join(project, 'node_modules/@opgen/runtime/dist/index.js'))).toBe(true);
    expect(existsSync(join(project, 'node_modules/.bin/opgen'))).toBe(true);
  }, STEP);

  it('type-checks with tsc (strict, no errors)', async () => {
    const r = await run('npx', ['--no-install', 'tsc', '-p', 'tsconfig.json', '--noEmit']);
    expect(r.exitCode, r.all).toBe(0);
    const build = await run('npm', ['run', 'build']);
    expect(build.exitCode, build.all).toBe(0);
    expect(existsSync(join(project, 'dist/main.js'))).toBe(true);
  }, STEP);

  it('npm run lint (tsc + ESLint with typescript-eslint) passes, and fails on a planted lint error', async () => {
    const clean = await run('npm', ['run', 'lint']);
    expect(clean.exitCode, clean.all).toBe(0);
    const planted = join(project, 'src/planted.ts');
    writeFileSync(planted, 'export function planted(): number {\n  const unused = 1;\n  return 2;\n}\n');
    try {
      const dirty = await run('npm', ['run', 'lint']);
      expect(dirty.exitCode, dirty.all).not.toBe(0);
      expect(dirty.all).toMatch(/src\/planted\.ts[\s\S]*'unused' is assigned a value but never used\s+@typescript-eslint\/no-unused-vars/);
    } finally {
      rmSync(planted);
    }
  }, STEP);

  it('opgen generate writes the CRDs and the manager role', async () => {
    const r = await run('npx', ['--no-install', 'opgen', 'generate']);
    expect(r.exitCode, r.all).toBe(0);
    for (const f of ['config/crd/bases/cache.example.com_memcacheds.yaml', 'config/crd/bases/cache.example.com_policies.yaml', 'config/rbac/role.yaml']) {
      expect(existsSync(join(project, f)), f).toBe(true);
    }
  }, STEP);

  it('kubectl kustomize config/default renders the CRDs, RBAC and the manager Deployment', async () => {
    const r = await run('kubectl', ['kustomize', 'config/default']);
    expect(r.exitCode, r.all).toBe(0);
    const objects = parseAllDocuments(String(r.stdout)).map((d) => d.toJS() as K8sObject);
    const find = (kind: string, name: string): K8sObject | undefined => objects.find((o) => o.kind === kind && o.metadata.name === name);
    const names = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
    expect(names).toEqual(
      expect.arrayContaining([
        'CustomResourceDefinition/memcacheds.cache.example.com',
        'CustomResourceDefinition/policies.cache.example.com',
        'Namespace/memcached-operator-system',
        'ServiceAccount/memcached-operator-controller-manager',
        'ClusterRole/memcached-operator-manager-role',
        'ClusterRoleBinding/memcached-operator-manager-rolebinding',
        'Role/memcached-operator-leader-election-role',
        'RoleBinding/memcached-operator-leader-election-rolebinding',
        'ClusterRole/memcached-operator-metrics-auth-role',
        'ClusterRole/memcached-operator-metrics-reader',
        'ClusterRole/memcached-operator-memcached-editor-role',
        'ClusterRole/memcached-operator-policy-viewer-role',
        'Service/memcached-operator-controller-manager-metrics-service',
        'Deployment/memcached-operator-controller-manager',
      ]),
    );
    expect(find('CustomResourceDefinition', 'memcacheds.cache.example.com')?.spec?.scope).toBe('Namespaced');
    expect(find('CustomResourceDefinition', 'policies.cache.example.com')?.spec?.scope).toBe('Cluster');

    const role = find('ClusterRole', 'memcached-operator-manager-role');
    const resources = (role?.rules ?? []).flatMap((rule) => rule.resources ?? []);
    expect(resources).toEqual(expect.arrayContaining(['memcacheds', 'memcacheds/status', 'memcacheds/finalizers', 'policies', 'policies/status', 'policies/finalizers']));

    const deployment = find('Deployment', 'memcached-operator-controller-manager');
    expect(deployment?.metadata.namespace).toBe('memcached-operator-system');
    const pod = deployment?.spec?.template?.spec;
    expect(pod?.serviceAccountName).toBe('memcached-operator-controller-manager');
    expect(pod?.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    const manager = pod?.containers?.[0];
    expect(manager?.args).toEqual(['--metrics-bind-address=:8443', '--leader-elect', '--health-probe-bind-address=:8081']);
    expect(manager?.securityContext).toEqual({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(manager?.livenessProbe?.httpGet?.path).toBe('/healthz');
    expect(manager?.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(manager?.resources?.limits).toBeDefined();
  }, STEP);

  it('build-installer writes dist/install.yaml with the IMG image', async () => {
    const r = await run('npm', ['run', 'build-installer'], { env: { ...process.env, IMG: 'registry.example.com/memcached-operator:v0.1.0' } });
    expect(r.exitCode, r.all).toBe(0);
    const objects = parseAllDocuments(readFileSync(join(project, 'dist/install.yaml'), 'utf8')).map((d) => d.toJS() as K8sObject);
    const deployment = objects.find((o) => o.kind === 'Deployment');
    expect(deployment?.spec?.template?.spec?.containers?.[0]?.image).toBe('registry.example.com/memcached-operator:v0.1.0');
  }, STEP);

  it('the built manager runs against a real API server: ready, reconciles a Memcached, stops on SIGTERM', async () => {
    const env = await startTestEnv({ crdPaths: [join(project, 'config/crd/bases')] });
    try {
      const port = await freePort();
      // Through `npm start` (manifests, build, then the compiled manager), stopped by SIGTERM to npm.
      const manager = execa('npm', ['start', '--', `--health-probe-bind-address=127.0.0.1:${port}`, '--leader-elect'], {
        cwd: project,
        reject: false,
        all: true,
        env: { ...process.env, KUBECONFIG: env.kubeconfigPath, OPGEN_LOG_LEVEL: 'debug' },
      });
      let log = '';
      manager.all?.on('data', (chunk: Buffer) => void (log += chunk.toString()));
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.ok === true, () => log);

      const Memcached = groupVersion('cache.example.com', 'v1alpha1').kind('Memcached', { plural: 'memcacheds' });
      await createClient(env.kubeConfig).create(Memcached, { apiVersion: Memcached.apiVersion, kind: 'Memcached', metadata: { name: 'e2e-sample', namespace: 'default' } });
      await waitFor(async () => log.split('\n').some((l) => l.includes('"reconciling"') && l.includes('e2e-sample')), () => log);

      manager.kill('SIGTERM');
      const r = await manager;
      expect(r.exitCode, log).toBe(0);
      // The manager itself got the signal and let go of its port (npm left nothing running).
      expect(await fetch(`http://127.0.0.1:${port}/readyz`).then(() => 'still serving', () => 'closed')).toBe('closed');
    } finally {
      await env.stop();
    }
  }, STEP);

  it('npm test passes with KUBEBUILDER_ASSETS unset: the binaries come from the cache opgen set up', async () => {
    // Only the cache that .ci/test-assets.sh (opgen's set-up) or `opgen setup-envtest` filled; a
    // download would fail (unreachable index), so a pass proves the cache lookup.
    const { KUBEBUILDER_ASSETS: _assets, TEST_ASSET_KUBE_APISERVER: _kas, TEST_ASSET_ETCD: _etcd, ...rest } = process.env;
    const env = { ...rest, OPGEN_ENVTEST_INDEX_URL: 'http://127.0.0.1:1/never-fetched.yaml', NO_COLOR: '1', FORCE_COLOR: '0' };
    const setup = await run('npx', ['--no-install', 'opgen', 'setup-envtest', '-p', 'path', '--no-build'], { env, extendEnv: false });
    expect(setup.exitCode, setup.all).toBe(0);
    const folder = String(setup.stdout).trim();
    for (const b of ['kube-apiserver', 'etcd']) expect(existsSync(join(folder, b)), `${folder}/${b}`).toBe(true);
    const r = await run('npm', ['test'], { env, extendEnv: false });
    expect(r.exitCode, r.all).toBe(0);
    expect(String(r.all).replace(/\x1b\[[0-9;]*m/g, '')).toMatch(/Tests\s+5 passed \(5\)/);
  }, STEP);
});

interface K8sObject {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Array<{ resources?: string[] }>;
  spec?: {
    scope?: string;
    template?: {
      spec?: {
        serviceAccountName?: string;
        securityContext?: unknown;
        containers?: Array<{
          args?: string[];
          image?: string;
          securityContext?: unknown;
          livenessProbe?: { httpGet?: { path?: string } };
          readinessProbe?: { httpGet?: { path?: string } };
          resources?: { limits?: unknown };
        }>;
      };
    };
  };
}
