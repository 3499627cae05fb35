// Kubebuilder's project kit in an opgen project: CI workflows, lint set-up, IMG-aware deploy, a
// .gitignore that keeps dist/install.yaml, controllers for kinds the project does not own, named
// controllers, and license headers — each checked on a real scaffold (and with real git and kubectl).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { opgen, type CliResult } from '../testdata/cli.js';
import { parseProject } from '../project/index.js';
import { snapshot } from '../testdata/files.js';


let parent: string;
let dir: string;
beforeEach(() => {
  parent = mkdtempSync(join(tmpdir(), 'opgen-kit-'));
  dir = join(parent, 'memcached-operator');
  mkdirSync(dir);
});
afterEach(() => rmSync(parent, { recursive: true, force: true }));

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const init = (...extra: string[]) => opgen(dir, 'init', '--domain', 'example.com', '--skip-install', ...extra);
const createApi = (...extra: string[]) => opgen(dir, 'create', 'api', ...extra);
const files = (): Record<string, string> => snapshot(dir);

/** One line on stderr naming the flag, exit 1, and not a byte changed. */
async function expectRefused(before: Record<string, string>, r: Promise<CliResult>, pattern: RegExp): Promise<void> {
  const result = await r;
  expect(result.code, result.stdout).toBe(1);
  expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
  expect(files()).toEqual(before);
}

describe('init: the project kit', () => {
  it('writes lint, test and e2e workflows with a read-only token and actions pinned to commits', async () => {
    expect((await init()).code).toBe(0);
    for (const name of ['lint', 'test', 'test-e2e']) {
      const wf = parse(read(`.github/workflows/${name}.yml`)) as { permissions: unknown; jobs: Record<string, { steps: Array<{ uses?: string; run?: string }> }> };
      expect(wf.permissions, name).toEqual({ contents: 'read' });
      const steps = Object.values(wf.jobs).flatMap((j) => j.steps);
      const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []));
      expect(uses.length, name).toBeGreaterThan(0);
      for (const u of uses) expect(u, `${name}: ${u}`).toMatch(/^[\w-]+\/[\w-]+@[0-9a-f]{40}$/);
      const runs = steps.flatMap((s) => (s.run ? [s.run] : [])).join('\n');
      expect(runs).toContain({ lint: 'npm run lint', test: 'npm test', 'test-e2e': 'npm run test-e2e' }[name]);
    }
  });

  it('ignores tsc output but not dist/install.yaml or the Helm chart (checked with git)', async () => {
    expect((await init()).code).toBe(0);
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const ignored = (path: string) => spawnSync('git', ['check-ignore', '-q', path], { cwd: dir }).status === 0;
    expect(ignored('dist/main.js')).toBe(true);
    expect(ignored('node_modules/x/index.js')).toBe(true);
    expect(ignored('dist/install.yaml')).toBe(false);
    expect(ignored('dist/chart/values.yaml')).toBe(false);
    expect(ignored('dist/chart/.opgen/values.yaml')).toBe(false);
  });

  it('has the scripts a kubebuilder user looks for, with start running the compiled manager after manifests and build', async () => {
    expect((await init()).code).toBe(0);
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.scripts.prestart).toBe('npm run manifests && npm run build');
    // exec: the shell npm starts becomes node, so the signal npm forwards reaches the manager.
    expect(pkg.scripts.start).toBe('exec node --enable-source-maps dist/main.js');
    expect(pkg.scripts['docker-push']).toBe('docker push ${IMG:-controller:latest}');
    expect(pkg.scripts['docker-buildx']).toContain('--platform=${PLATFORMS:-linux/arm64,linux/amd64,linux/s390x,linux/ppc64le}');
    expect(pkg.scripts.deploy).toBe('node hack/set-image.mjs && kubectl apply -k config/default');
    expect(pkg.scripts['build-installer']).toMatch(/^node hack\/set-image\.mjs && /);
    for (const s of ['lint', 'lint-fix', 'format', 'setup-test-e2e', 'test-e2e', 'cleanup-test-e2e']) expect(pkg.scripts[s], s).toBeTruthy();
    expect(pkg.scripts['setup-test-e2e']).toContain('${KIND_CLUSTER:-memcached-operator-test-e2e}');
    expect(Object.keys(pkg.devDependencies)).toEqual(expect.arrayContaining(['eslint', 'typescript-eslint', 'prettier', '@eslint/js', 'eslint-config-prettier']));
    // `npm run format` leaves generated output alone (a rerun of its generator would undo a reformat).
    expect(read('.prettierignore').split('\n')).toEqual(expect.arrayContaining(['dist/', 'config/', 'bundle/']));
    expect(read('vitest.config.ts')).toContain("exclude: ['test/e2e/**'");
    expect(read('test/e2e/e2e.test.ts')).toContain("'create', 'token', serviceAccount");
    expect(read('Dockerfile')).toContain('FROM --platform=$BUILDPLATFORM node:20-bookworm-slim AS builder');
  });

  it("starts the image's node with flags and environment this Node accepts (a mistyped V8 flag stops the pod)", async () => {
    expect((await init()).code).toBe(0);
    const lastStage = read('Dockerfile').slice(read('Dockerfile').lastIndexOf('\nFROM '));
    const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(lastStage)![1]!) as string[];
    expect(entrypoint[0]).toBe('/nodejs/bin/node');
    expect(entrypoint.at(-1)).toBe('/dist/main.js');
    const env = Object.fromEntries([...lastStage.matchAll(/^ENV (\w+)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(Object.keys(env)).toContain('MALLOC_ARENA_MAX');
    const flags = entrypoint.slice(1, -1);
    writeFileSync(join(parent, 'main.mjs'), 'console.log(process.execArgv.join(" "), process.env.MALLOC_ARENA_MAX);\n');
    const r = spawnSync(process.execPath, [...flags, join(parent, 'main.mjs')], { encoding: 'utf8', env: { ...process.env, ...env } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${flags.join(' ')} ${env.MALLOC_ARENA_MAX}\n`);
  });

  it('sets the manager image from IMG the way kustomize edit set image does (checked with kubectl kustomize)', async () => {
    expect((await init()).code).toBe(0);
    const setImage = (img: string | undefined) => spawnSync(process.execPath, ['hack/set-image.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, IMG: img ?? '' } });
    const image = () => {
      const out = execFileSync('kubectl', ['kustomize', 'config/default'], { cwd: dir, encoding: 'utf8' });
      const d = parseAllDocuments(out).map((doc) => doc.toJS() as { kind: string; spec?: { template?: { spec?: { containers?: Array<{ image?: string }> } } } }).find((o) => o.kind === 'Deployment');
      return d?.spec?.template?.spec?.containers?.[0]?.image;
    };
    expect(setImage('registry.example.com:5000/team/memcached-operator:v1.2.3').status).toBe(0);
    expect(image()).toBe('registry.example.com:5000/team/memcached-operator:v1.2.3');
    expect(setImage('example.com/op@sha256:' + 'a'.repeat(64)).status).toBe(0);
    expect(image()).toBe(`example.com/op@sha256:${'a'.repeat(64)}`);
    expect(setImage(undefined).status).toBe(0);
    expect(image()).toBe('controller:latest');
    const before = read('config/manager/kustomization.yaml');
    const bad = setImage('Not An Image');
    expect(bad.status).toBe(1);
    expect(bad.stderr.trim().split('\n')).toEqual(['set-image: IMG=Not An Image is not an image reference; write it like registry.example.com/name:tag']);
    expect(read('config/manager/kustomization.yaml')).toBe(before);
  });
});

describe('create api for kinds the project does not own', () => {
  it('--group apps --version v1 --kind Deployment --resource=false: a controller on the typed built-in kind, PROJECT core: true', async () => {
    expect((await init()).code).toBe(0);
    const before = files();
    const r = await createApi('--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false', '--controller');
    expect(r.code, r.stderr).toBe(0);
    const controller = read('src/controller/deployment-controller.ts');
    expect(controller).toContain("import { Deployment } from '@opgen/runtime/kubernetes/appsv1';");
    expect(controller).toContain('+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete');
    expect(read('src/main.ts')).toContain('new DeploymentReconciler(mgr.client).setupWithManager(mgr);');
    expect(read('src/controller/deployment-controller.test.ts')).not.toContain('spec: {');
    const project = parseProject(read('PROJECT'));
    expect(project.resources).toEqual([{ group: 'apps', domain: '', version: 'v1', kind: 'Deployment', controller: true, core: true }]);
    // No CRD, sample or roles for a kind the project does not own.
    const added = Object.keys(files()).filter((f) => !(f in before)).sort();
    expect(added).toEqual(['src/controller/deployment-controller.test.ts', 'src/controller/deployment-controller.ts']);

    expect((await createApi('--group', 'core', '--version', 'v1', '--kind', 'Pod', '--resource=false')).code).toBe(0);
    expect(read('src/controller/pod-controller.ts')).toContain('+kubebuilder:rbac:groups=core,resources=pods,');
    expect(read('src/controller/pod-controller.ts')).toContain("from '@opgen/runtime/kubernetes/corev1'");
  });

  it('names built-in groups as kubebuilder and `create webhook` do: --group rbac.authorization is rbac.authorization.k8s.io', async () => {
    expect((await init()).code).toBe(0);
    const r = await createApi('--group', 'rbac.authorization', '--version', 'v1', '--kind', 'Role', '--resource=false');
    expect(r.code, r.stderr).toBe(0);
    const controller = read('src/controller/role-controller.ts');
    expect(controller).toContain("from '@opgen/runtime/kubernetes/rbacv1'");
    expect(controller).toContain('+kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles,');
    expect(parseProject(read('PROJECT')).resources).toEqual([{ group: 'rbac.authorization', domain: '', version: 'v1', kind: 'Role', controller: true, core: true }]);
    // A group of the project's own is still one DNS label.
    const bad = await createApi('--group', 'my.group', '--version', 'v1', '--kind', 'Thing');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--group.*invalid group "my.group"|invalid group "my.group"/);
  });

  it('--external-api-path: a controller on another project\'s kind, PROJECT external: true', async () => {
    expect((await init()).code).toBe(0);
    const r = await createApi('--group', 'widgets', '--version', 'v1', '--kind', 'Widget', '--resource=false',
      '--external-api-path', '@example/widgets-api', '--external-api-domain', 'example.org');
    expect(r.code, r.stderr).toBe(0);
    expect(read('src/controller/widget-controller.ts')).toContain("import { Widget } from '@example/widgets-api';");
    expect(read('src/controller/widget-controller.ts')).toContain('groups=widgets.example.org,resources=widgets,');
    expect(parseProject(read('PROJECT')).resources).toEqual([{ group: 'widgets', domain: 'example.org', version: 'v1', kind: 'Widget', path: '@example/widgets-api', controller: true, external: true }]);
  });

  it('refuses bad flags with one line, writing nothing', async () => {
    expect((await init()).code).toBe(0);
    const before = files();
    await expectRefused(before, createApi('--group', 'storage', '--version', 'v1', '--kind', 'StorageClass', '--resource=false'), /^--resource: error: no API storage\/v1, Kind=StorageClass in this project .*--external-api-path/);
    await expectRefused(before, createApi('--group', 'apps', '--version', 'v2', '--kind', 'Deployment', '--resource=false'), /^--version: error: @opgen\/runtime\/kubernetes has no typed kinds for apps\/v2 \(use v1/);
    await expectRefused(before, createApi('--group', 'w', '--version', 'v1', '--kind', 'W', '--external-api-path', 'x'), /^--external-api-path: error: cannot be used when creating an API in the project/);
    await expectRefused(before, createApi('--group', 'w', '--version', 'v1', '--kind', 'W', '--resource=false', '--external-api-domain', 'example.org'), /^--external-api-domain: error: requires --external-api-path/);
    await expectRefused(before, createApi('--group', 'w', '--version', 'v1', '--kind', 'W', '--resource=false', '--external-api-path', 'x', '--external-api-domain', 'Bad_Domain'), /^--external-api-domain: error: invalid domain "Bad_Domain"/);
    await expectRefused(before, createApi('--group', 'w', '--version', 'v1', '--kind', 'W', '--resource=false', '--external-api-path', 'has space'), /^--external-api-path: error: "has space" is not an import specifier/);
    await expectRefused(before, createApi('--group', 'cache', '--version', 'v1', '--kind', 'M', '--controller-name', 'Bad_Name'), /^--controller-name: error: invalid controller name "Bad_Name"/);
    await expectRefused(before, createApi('--group', 'cache', '--version', 'v1', '--kind', 'M', '--controller=false', '--controller-name', 'm2'), /^--controller-name: error: names a controller, but --controller is off/);
  });
});

describe('create api --controller-name', () => {
  it('adds a second controller of one kind: its own file and class, registered in main.ts, listed in PROJECT', async () => {
    expect((await init()).code).toBe(0);
    expect((await createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached')).code).toBe(0);
    const before = files();
    await expectRefused(before, createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource=false'), /^--kind: error: controller cache\/v1alpha1, Kind=Memcached already exists \(pass --controller-name <name> for a second controller/);
    const r = await createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource=false', '--controller-name', 'memcached-backup');
    expect(r.code, r.stderr).toBe(0);
    const second = read('src/controller/memcached-backup-controller.ts');
    expect(second).toContain('export class MemcachedBackupReconciler implements Reconciler');
    expect(second).toContain("named('memcached-backup')");
    expect(second).toContain("import { Memcached } from '../api/v1alpha1/memcached-types.js';");
    expect(read('src/controller/memcached-backup-controller.test.ts')).toContain("import { MemcachedBackupReconciler } from './memcached-backup-controller.js';");
    const main = read('src/main.ts');
    expect(main).toContain('new MemcachedReconciler(mgr.client).setupWithManager(mgr);');
    expect(main).toContain('new MemcachedBackupReconciler(mgr.client).setupWithManager(mgr);');
    expect(read('src/controller/memcached-controller.ts')).toBe(before['src/controller/memcached-controller.ts']);
    const [memcached] = parseProject(read('PROJECT')).resources;
    expect(memcached).toMatchObject({ kind: 'Memcached', controller: true, controllers: ['memcached-backup'], api: { namespaced: true } });
    const again = files();
    await expectRefused(again, createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached', '--resource=false', '--controller-name', 'memcached-backup'), /^--controller-name: error: controller "memcached-backup" of cache\/v1alpha1, Kind=Memcached already exists/);
  });
});

describe('license headers', () => {
  const header = '/*\nCopyright 2026 Example Corp.\nAll rights reserved.\n*/\n';

  it('init --license-file puts your header on every new source file', async () => {
    writeFileSync(join(parent, 'LICENSE-HEADER.txt'), header);
    expect((await init('--license-file', '../LICENSE-HEADER.txt')).code).toBe(0);
    expect(read('hack/boilerplate.ts.txt')).toBe(header);
    expect(read('src/main.ts').startsWith(`${header}\n`)).toBe(true);
    expect((await createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached')).code).toBe(0);
    expect(read('src/controller/memcached-controller.ts').startsWith(`${header}\n`)).toBe(true);
  });

  it('init --license-file refuses a missing file or a header that is not one comment block, writing nothing', async () => {
    writeFileSync(join(parent, 'plain.txt'), 'Copyright me\n');
    writeFileSync(join(parent, 'two.txt'), '/* a */\n/* b */\n');
    for (const [file, message] of [['../missing.txt', /^--license-file: error: cannot read \.\.\/missing\.txt: ENOENT/], ['../plain.txt', /is not a single \/\* \.\.\. \*\/ comment block/], ['../two.txt', /is not a single/]] as const) {
      await expectRefused({}, init('--license-file', file), message);
    }
  });

  it('edit --license/--owner/--license-file rewrite the header of files scaffolded from now on', async () => {
    expect((await init('--owner', 'First Owner')).code).toBe(0);
    expect(read('hack/boilerplate.ts.txt')).toContain('Copyright First Owner.');
    const main = read('src/main.ts');
    const r = await opgen(dir, 'edit', '--owner', 'Second Owner');
    expect(r.code, r.stderr).toBe(0);
    expect(read('hack/boilerplate.ts.txt')).toContain('Copyright Second Owner.');
    expect(read('src/main.ts')).toBe(main);
    expect((await opgen(dir, 'edit', '--license', 'none')).code).toBe(0);
    expect(read('hack/boilerplate.ts.txt').trim()).toBe('');
    expect((await createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached')).code).toBe(0);
    expect(read('src/controller/memcached-controller.ts').startsWith('import ')).toBe(true);
    writeFileSync(join(parent, 'h.txt'), header);
    expect((await opgen(dir, 'edit', '--license-file', '../h.txt')).code).toBe(0);
    expect(read('hack/boilerplate.ts.txt')).toBe(header);

    const before = files();
    await expectRefused(before, opgen(dir, 'edit', '--license', 'none', '--owner', 'X'), /^--owner: error: has no header to appear in with --license none/);
    await expectRefused(before, opgen(dir, 'edit', '--license-file', '../h.txt', '--owner', 'X'), /^--license-file: error: replaces the whole header/);
    await expectRefused(before, opgen(dir, 'edit', '--license', 'mit'), /--license.*mit/);
    await expectRefused(before, opgen(dir, 'edit'), /^edit: error: nothing to change/);
  });
});

describe('opgen setup-envtest', () => {
  it('prints the folder of cached binaries (-p path / env), downloading nothing', async () => {
    const assets = process.env.KUBEBUILDER_ASSETS ?? '';
    const cache = join(parent, 'cache');
    const folder = join(cache, 'k8s-1.36.3-etcd-3.6.16');
    mkdirSync(folder, { recursive: true });
    for (const b of ['kube-apiserver', 'etcd']) symlinkSync(join(assets, b), join(folder, b));
    const saved = { cache: process.env.OPGEN_ASSETS_CACHE, index: process.env.OPGEN_ENVTEST_INDEX_URL, data: process.env.XDG_DATA_HOME };
    process.env.OPGEN_ASSETS_CACHE = cache;
    process.env.OPGEN_ENVTEST_INDEX_URL = 'http://127.0.0.1:9/unreachable.yaml';
    process.env.XDG_DATA_HOME = join(parent, 'data');
    try {
      expect(await opgen(dir, 'setup-envtest', '-p', 'path', '--no-build')).toEqual({ code: 0, stdout: `${folder}\n`, stderr: '' });
      expect((await opgen(dir, 'setup-envtest', '1.36', '-p', 'env')).stdout).toBe(`export KUBEBUILDER_ASSETS='${folder}'\n`);
      // --cluster: the simulated cluster's folder of the same Kubernetes version, from the same cache.
      const cluster = join(cache, 'cluster-k8s-1.36.3-kwok-0.8.0');
      mkdirSync(cluster);
      for (const b of ['kube-controller-manager', 'kube-scheduler', 'kwok', 'kwok-stages.yaml']) symlinkSync(join(process.env.OPGEN_CLUSTER_ASSETS ?? '', b), join(cluster, b));
      expect((await opgen(dir, 'setup-envtest', '--cluster', '-p', 'env', '--no-build')).stdout).toBe(`export KUBEBUILDER_ASSETS='${folder}'\nexport OPGEN_CLUSTER_ASSETS='${cluster}'\n`);
      expect((await opgen(dir, 'setup-envtest', '--cluster', '-p', 'path', '--no-build')).stdout).toBe(`${cluster}\n`);
    } finally {
      for (const [k, v] of [['OPGEN_ASSETS_CACHE', saved.cache], ['OPGEN_ENVTEST_INDEX_URL', saved.index], ['XDG_DATA_HOME', saved.data]] as const) {
        if (v === undefined) delete process.env[k]; else process.env[k] = v;
      }
    }
  });

  it('refuses a bad version, URL or print format with one line', async () => {
    await expectRefused({}, opgen(dir, 'setup-envtest', '1.x'), /^setup-envtest: error: '1\.x' is not a Kubernetes version \(write it like 1\.36, 1\.36\.x or 1\.36\.3\)\n$/);
    await expectRefused({}, opgen(dir, 'setup-envtest', '--index-url', 'not-a-url'), /^--index-url: error: 'not-a-url' is not a URL/);
    await expectRefused({}, opgen(dir, 'setup-envtest', '-p', 'bogus'), /argument 'bogus' is invalid/);
  });
});
