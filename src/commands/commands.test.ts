import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opgen, type CliResult } from '../testdata/cli.js';
import { opgenVersion } from '../common/version.js';
import { parseProject } from '../project/index.js';
import { snapshot, tempDir } from '../testdata/files.js';


/** A new empty directory named `name` inside a fresh temp folder. */
const tempProjectDir = (name = 'memcached-operator'): { dir: string; cleanup: () => void } => tempDir('opgen-cmd-', name);

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempProjectDir()));
afterEach(() => cleanup());

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const init = (...extra: string[]): Promise<CliResult> => opgen(dir, 'init', '--domain', 'example.com', '--skip-install', ...extra);

/** A failure a user sees: exit 1 and exactly one line on stderr (no stack trace), nothing on stdout. */
function expectOneLineError(r: CliResult, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr.trimEnd()).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stdout).toBe('');
}

describe('opgen init', () => {
  it('scaffolds a project: PROJECT, package.json at the CLI version, manager, config tree', async () => {
    const r = await init('--repo', 'github.com/example/memcached-operator');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CREATE src/main.ts\n');
    expect(r.stdout).toContain('\n$ npx opgen create api --group cache --version v1alpha1 --kind Memcached\n');
    const project = parseProject(read('PROJECT'));
    expect(project).toMatchObject({ domain: 'example.com', projectName: 'memcached-operator', repo: 'github.com/example/memcached-operator', layout: ['ts.opgen.dev/v1'], cliVersion: opgenVersion(), resources: [] });
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string>; devDependencies: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.dependencies['@opgen/runtime']).toBe(opgenVersion());
    expect(pkg.devDependencies.opgen).toBe(opgenVersion());
    expect(pkg.devDependencies).toMatchObject({ typescript: '~5.9.3', vitest: '4.1.12', '@types/node': '^20' });
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['build', 'start', 'test', 'lint', 'manifests', 'deploy', 'undeploy', 'build-installer', 'docker-build']));
    expect(pkg.scripts.manifests).toBe('opgen generate');
    for (const flag of ['--metrics-bind-address', '--health-probe-bind-address', '--leader-elect']) expect(read('src/main.ts')).toContain(`'${flag.slice(2)}'`);
    expect(read('config/default/kustomization.yaml')).toMatch(/^namespace: memcached-operator-system$/m);
    expect(read('config/default/kustomization.yaml')).toMatch(/^namePrefix: memcached-operator-$/m);
    for (const f of ['.gitignore', '.dockerignore', 'Dockerfile', 'tsconfig.json', 'vitest.config.ts', 'test/envtest.ts', 'config/prometheus/monitor.yaml', 'config/network-policy/allow-metrics-traffic.yaml', 'config/rbac/metrics_reader_role.yaml']) {
      expect(existsSync(join(dir, f)), f).toBe(true);
    }
    expect(read('src/main.ts')).toContain('Licensed under the Apache License');
  });

  it('says how to install from the packed tarballs when npm install fails (opgen not on the registry)', async () => {
    // npm offline with an empty cache: it cannot fetch @opgen/runtime, as with a registry that lacks it.
    const saved = { offline: process.env.npm_config_offline, cache: process.env.npm_config_cache, agent: process.env.npm_config_user_agent };
    const cache = mkdtempSync(join(tmpdir(), 'opgen-npm-cache-'));
    Object.assign(process.env, { npm_config_offline: 'true', npm_config_cache: cache, npm_config_user_agent: 'npm/10' });
    try {
      const r = await opgen(dir, 'init', '--domain', 'example.com');
      expect(r.code).toBe(1);
      const line = r.stderr.trimEnd();
      expect(line.split('\n')).toHaveLength(1);
      expect(line.startsWith('--skip-install: error: `npm install` failed (')).toBe(true);
      const v = opgenVersion();
      expect(line.endsWith(
        `(the project files are written; fix the problem and run \`npm install\`; if your registry lacks opgen or @opgen/runtime, install their packed tarballs instead: \`npm install <path>/opgen-${v}.tgz <path>/opgen-runtime-${v}.tgz\`)`,
      )).toBe(true);
      expect(existsSync(join(dir, 'PROJECT'))).toBe(true);
    } finally {
      for (const [k, v] of [['npm_config_offline', saved.offline], ['npm_config_cache', saved.cache], ['npm_config_user_agent', saved.agent]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      rmSync(cache, { recursive: true, force: true });
    }
  }, 60_000);

  it('is deterministic: the same flags give the same bytes', async () => {
    await init();
    const first = snapshot(dir);
    const again = tempProjectDir();
    try {
      await opgen(again.dir, 'init', '--domain', 'example.com', '--skip-install');
      expect(snapshot(again.dir)).toEqual(first);
    } finally {
      again.cleanup();
    }
  });

  it('--license none leaves source files without a header', async () => {
    await init('--license', 'none');
    expect(read('src/main.ts')).not.toContain('Copyright');
    expect(read('src/main.ts').startsWith('// The manager')).toBe(true);
  });

  it('writes nothing with --dry-run', async () => {
    const r = await init('--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('CREATE PROJECT\n');
    expect(snapshot(dir)).toEqual({});
  });

  it.each(['PROJECT', 'package.json', 'src/main.ts'])('refuses a directory that already has %s', async (file) => {
    await init();
    const keep = read(file);
    for (const f of ['PROJECT', 'package.json', 'src/main.ts']) if (f !== file) rmSync(join(dir, f));
    const before = snapshot(dir);
    expectOneLineError(await init(), new RegExp(`^${file.replace('.', '\\.')}: error: this directory already holds a project`));
    expect(snapshot(dir)).toEqual(before);
    expect(read(file)).toBe(keep);
  });

  it('in a folder holding a file named src: one line naming src, nothing written, and init works once it is moved', async () => {
    writeFileSync(join(dir, 'src'), 'not a folder\n');
    expectOneLineError(await init(), /^src: error: this is a file, but src\/[\w/.-]+ needs a folder here \(move src away and run the command again; nothing was written\)$/);
    expect(snapshot(dir)).toEqual({ src: 'not a folder\n' });
    rmSync(join(dir, 'src'));
    expect((await init()).code).toBe(0);
  });

  it('validates the domain as a DNS-1123 subdomain', async () => {
    expectOneLineError(await opgen(dir, 'init', '--domain', 'Example.COM', '--skip-install'), /^--domain: error: invalid domain "Example.COM": it must be a DNS-1123 subdomain/);
    expect(snapshot(dir)).toEqual({});
  });

  it('validates the project name as a DNS-1123 label', async () => {
    expectOneLineError(await init('--project-name', 'my_project'), /^--project-name: error: invalid project name "my_project": it must be a DNS-1123 label/);
    const odd = tempProjectDir('my.operator');
    try {
      expectOneLineError(
        await opgen(odd.dir, 'init', '--skip-install'),
        /^--project-name: error: the directory name "my.operator" is not a valid project name: .* \(pass --project-name <name>\)$/,
      );
    } finally {
      odd.cleanup();
    }
  });
});

describe('opgen create api', () => {
  beforeEach(async () => {
    expect((await init()).code).toBe(0);
  });
  const createApi = (...args: string[]): Promise<CliResult> => opgen(dir, 'create', 'api', ...args);

  it('scaffolds types, controller, test, sample, roles and wiring, and records the resource', async () => {
    const r = await createApi('--group', 'cache', '--version', 'v1alpha1', '--kind', 'Memcached');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const types = read('src/api/v1alpha1/memcached-types.ts');
    expect(types).toMatch(/\+listType=map\n\s*\* \+listMapKey=type\n\s*\*\/\n\s*conditions\?: Condition\[\];/);
    expect(types).toMatch(/\+kubebuilder:object:root=true\n \* \+kubebuilder:subresource:status\n( \* \+kubebuilder:printcolumn:.*\n){4} \*\/\nexport interface Memcached \{/);
    // kubectl get shows Ready's status, reason, time since its transition, and the age (test/grafana checks it on an API server).
    expect(types).toContain(' * +kubebuilder:printcolumn:name="Ready",type="string",JSONPath=".status.conditions[?(@.type==\\"Ready\\")].status"\n');
    expect(types).toMatch(/\+kubebuilder:object:root=true\n \*\/\nexport interface MemcachedList \{/);
    expect(types).toContain("export const Memcached = GroupVersion.kind<Memcached>('Memcached', { plural: 'memcacheds', namespaced: true });");
    expect(read('src/api/v1alpha1/groupversion-info.ts')).toContain('// +groupName=cache.example.com\n');
    const controller = read('src/controller/memcached-controller.ts');
    for (const rule of ['resources=memcacheds,verbs=get;list;watch;create;update;patch;delete', 'resources=memcacheds/status,verbs=get;update;patch', 'resources=memcacheds/finalizers,verbs=update']) {
      expect(controller).toContain(`// +kubebuilder:rbac:groups=cache.example.com,${rule}\n`);
    }
    expect(controller).toContain("mgr.controllerFor(Memcached).named('memcached').complete(this);");
    expect(read('src/controller/memcached-controller.test.ts')).toContain("import { useTestEnv } from '../../test/envtest.js';");
    expect(read('config/samples/cache_v1alpha1_memcached.yaml')).toContain('kind: Memcached\n');
    expect(read('config/rbac/memcached_editor_role.yaml')).toContain('name: memcached-editor-role\n');
    expect(read('config/crd/kustomization.yaml')).toContain('- bases/cache.example.com_memcacheds.yaml\n# +opgen:scaffold:crdkustomizeresource');
    expect(read('config/samples/kustomization.yaml')).toContain('- cache_v1alpha1_memcached.yaml\n');
    expect(read('config/rbac/kustomization.yaml')).toContain('- memcached_admin_role.yaml\n- memcached_editor_role.yaml\n- memcached_viewer_role.yaml\n# +opgen:scaffold:rbac');
    expect(read('config/default/kustomization.yaml')).toContain('- ../crd\n# +opgen:scaffold:crd');
    expect(read('src/main.ts')).toContain("import { MemcachedReconciler } from './controller/memcached-controller.js';\n// +opgen:scaffold:imports");
    expect(read('src/main.ts')).toContain('  new MemcachedReconciler(mgr.client).setupWithManager(mgr);\n  // +opgen:scaffold:controllers');
    expect(parseProject(read('PROJECT')).resources).toEqual([
      { group: 'cache', domain: 'example.com', version: 'v1alpha1', kind: 'Memcached', path: 'src/api/v1alpha1/memcached-types.ts', api: { crdVersion: 'v1', namespaced: true }, controller: true },
    ]);
  });

  it.each([['--namespaced=false'], ['--no-namespaced']])('%s makes a cluster-scoped API', async (flag) => {
    expect((await createApi('--group', 'policy', '--version', 'v1', '--kind', 'Policy', flag)).code).toBe(0);
    expect(read('src/api/v1/policy-types.ts')).toContain(' * +kubebuilder:resource:scope=Cluster\n');
    expect(read('src/api/v1/policy-types.ts')).toContain("{ plural: 'policies', namespaced: false }");
    expect(read('src/controller/policy-controller.test.ts')).toContain("const key = { name: 'test-resource' };");
    expect(parseProject(read('PROJECT')).resources[0]?.api).toEqual({ crdVersion: 'v1', namespaced: false });
  });

  it('accepts --namespaced=true and rejects other values', async () => {
    expect((await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--namespaced=true')).code).toBe(0);
    expect(parseProject(read('PROJECT')).resources[0]?.api?.namespaced).toBe(true);
    expectOneLineError(await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Other', '--namespaced=no'), /^--namespaced: error: expects true or false, got 'no'/);
  });

  it('records a non-default plural and marks the CRD path', async () => {
    expect((await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Redis', '--plural', 'redises')).code).toBe(0);
    expect(parseProject(read('PROJECT')).resources[0]?.plural).toBe('redises');
    expect(read('src/api/v1/redis-types.ts')).toContain(' * +kubebuilder:resource:path=redises\n');
    expect(read('config/crd/kustomization.yaml')).toContain('- bases/cache.example.com_redises.yaml');
  });

  it('uses kubebuilder plurals by default (Index → indices)', async () => {
    expect((await createApi('--group', 'search', '--version', 'v1', '--kind', 'Index')).code).toBe(0);
    expect(read('config/crd/kustomization.yaml')).toContain('- bases/search.example.com_indices.yaml');
    expect(parseProject(read('PROJECT')).resources[0]?.plural).toBeUndefined();
  });

  it.each([
    [['--version', 'v1', '--kind', 'Memcached'], /^--group: error: is required \(e\.g\. --group cache\)$/],
    [['--group', 'cache', '--kind', 'Memcached'], /^--version: error: is required/],
    [['--group', 'cache', '--version', 'v1'], /^--kind: error: is required/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'memcached'], /^--kind: error: invalid kind "memcached": it must be PascalCase/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Mem_cached'], /^--kind: error: invalid kind "Mem_cached": it must be PascalCase/],
    [['--group', 'cache', '--version', 'v1', '--kind', `K${'a'.repeat(63)}`], /^--kind: error: invalid kind "Ka+": it lower-cased, must be no more than 63 characters/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Result'], /^--kind: error: kind "Result" clashes with a name the scaffolded code imports from @opgen\/runtime \(choose another kind name, e\.g\. MyResult\)$/],
    [['--group', 'Cache', '--version', 'v1', '--kind', 'Memcached'], /^--group: error: invalid group "Cache": it must be a DNS-1123 label/],
    [['--group', 'cache.io', '--version', 'v1', '--kind', 'Memcached'], /^--group: error: invalid group "cache\.io": it must be a DNS-1123 label/],
    [['--group', 'cache', '--version', '1', '--kind', 'Memcached'], /^--version: error: invalid version "1": it must be a Kubernetes API version/],
    [['--group', 'cache', '--version', 'v1beta', '--kind', 'Memcached'], /^--version: error: invalid version "v1beta"/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--plural', '1caches'], /^--plural: error: invalid plural "1caches": it must be a DNS-1035 label/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--no-resource', '--no-controller'], /^--resource: error: nothing to create/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--no-resource'], /^--resource: error: no API cache\/v1, Kind=Memcached in this project/],
    [['--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--colour'], /^error: unknown option '--colour'/],
  ])('rejects %j with one line', async (args, pattern) => {
    const before = snapshot(dir);
    expectOneLineError(await createApi(...args), pattern);
    expect(snapshot(dir)).toEqual(before);
  });

  it('checks group.domain as a DNS-1123 subdomain', async () => {
    const longDomain = tempProjectDir();
    try {
      const domain = `${'d'.repeat(61)}.${'d'.repeat(61)}.${'d'.repeat(61)}.${'d'.repeat(61)}.io`; // 250 characters
      expect((await opgen(longDomain.dir, 'init', '--domain', domain, '--skip-install')).code).toBe(0);
      expectOneLineError(
        await opgen(longDomain.dir, 'create', 'api', '--group', 'caches', '--version', 'v1', '--kind', 'Memcached'),
        /^--group: error: invalid API group "caches\.d+\.d+\.d+\.d+\.io": it must be no more than 253 characters$/,
      );
    } finally {
      longDomain.cleanup();
    }
  });

  it('refuses an existing group/version/kind unless --force', async () => {
    expect((await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached')).code).toBe(0);
    writeFileSync(join(dir, 'src/controller/memcached-controller.ts'), '// my reconciler\n');
    const before = snapshot(dir);
    expectOneLineError(
      await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached'),
      /^--kind: error: API cache\/v1, Kind=Memcached already exists \(pass --force to scaffold it again/,
    );
    expect(snapshot(dir)).toEqual(before);
    const forced = await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('UPDATE src/controller/memcached-controller.ts\n');
    expect(read('src/controller/memcached-controller.ts')).toContain('export class MemcachedReconciler');
    expect(parseProject(read('PROJECT')).resources).toHaveLength(1);
    expect(read('src/main.ts').match(/setupWithManager/g)).toHaveLength(1); // insertion is idempotent
  });

  it('refuses to overwrite a user-owned file even for a new API, unless --force', async () => {
    const typesPath = join(dir, 'src/api/v1/memcached-types.ts');
    mkdirSync(join(dir, 'src/api/v1'), { recursive: true });
    writeFileSync(typesPath, '// hand-written\n');
    const before = snapshot(dir);
    expectOneLineError(
      await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached'),
      /^src\/api\/v1\/memcached-types\.ts: error: src\/api\/v1\/memcached-types\.ts already exists and would be overwritten \(pass --force to overwrite it\)$/,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('needs multigroup for a second group; opgen edit --multigroup switches to src/api/<group>/<version>', async () => {
    expect((await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached')).code).toBe(0);
    const before = snapshot(dir);
    expectOneLineError(
      await createApi('--group', 'crew', '--version', 'v1', '--kind', 'Captain'),
      /^--group: error: the project's APIs are in group "cache"; a second group needs a multi-group layout \(run `opgen edit --multigroup` first/,
    );
    expect(snapshot(dir)).toEqual(before);

    const edit = await opgen(dir, 'edit', '--multigroup');
    expect(edit.code).toBe(0);
    expect(edit.stdout).toContain('UPDATE PROJECT\n');
    expect(parseProject(read('PROJECT')).multigroup).toBe(true);

    expect((await createApi('--group', 'crew', '--version', 'v1', '--kind', 'Captain')).code).toBe(0);
    expect(read('src/api/crew/v1/captain-types.ts')).toContain('export interface Captain {');
    expect(read('src/api/crew/v1/groupversion-info.ts')).toContain('+groupName=crew.example.com');
    expect(read('src/controller/crew/captain-controller.ts')).toContain("from '../../api/crew/v1/captain-types.js'");
    expect(read('src/controller/crew/captain-controller.test.ts')).toContain("from '../../../test/envtest.js'");
    expect(read('config/rbac/crew_captain_admin_role.yaml')).toContain('name: crew-captain-admin-role');
    expect(read('src/main.ts')).toContain("import { CaptainReconciler } from './controller/crew/captain-controller.js';");
    // the first API stays where PROJECT records it
    expect(parseProject(read('PROJECT')).resources.map((r) => r.path)).toEqual(['src/api/v1/memcached-types.ts', 'src/api/crew/v1/captain-types.ts']);

    expectOneLineError(await opgen(dir, 'edit', '--multigroup=false'), /^--multigroup: error: the project has APIs in 2 groups \(cache, crew\)/);
  });

  it('adds a controller later to an API created with --no-controller', async () => {
    expect((await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--controller=false')).code).toBe(0);
    expect(existsSync(join(dir, 'src/controller/memcached-controller.ts'))).toBe(false);
    expect(read('src/main.ts')).not.toContain('MemcachedReconciler');
    expect(parseProject(read('PROJECT')).resources[0]?.controller).toBeUndefined();

    const r = await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--resource=false');
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('memcached-types.ts');
    expect(read('src/controller/memcached-controller.ts')).toContain("from '../api/v1/memcached-types.js'");
    expect(read('src/main.ts')).toContain('new MemcachedReconciler(mgr.client).setupWithManager(mgr);');
    expect(parseProject(read('PROJECT')).resources).toEqual([
      { group: 'cache', domain: 'example.com', version: 'v1', kind: 'Memcached', path: 'src/api/v1/memcached-types.ts', api: { crdVersion: 'v1', namespaced: true }, controller: true },
    ]);
    expectOneLineError(await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--resource=false'), /^--kind: error: controller cache\/v1, Kind=Memcached already exists/);
  });

  it('writes nothing with --dry-run and lists what would change', async () => {
    const before = snapshot(dir);
    const r = await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual(expect.arrayContaining(['UPDATE PROJECT', 'CREATE src/api/v1/memcached-types.ts', 'UPDATE src/main.ts', 'dry run: nothing was written']));
    expect(snapshot(dir)).toEqual(before);
  });

  it('fails without touching anything when an insertion point was removed', async () => {
    writeFileSync(join(dir, 'src/main.ts'), read('src/main.ts').replace('  // +opgen:scaffold:controllers\n', ''));
    const before = snapshot(dir);
    expectOneLineError(
      await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached'),
      /^src\/main\.ts: error: insertion point "\/\/ \+opgen:scaffold:controllers" is missing \(add the line/,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it('reports a broken PROJECT with its line', async () => {
    writeFileSync(join(dir, 'PROJECT'), read('PROJECT').replace('domain: example.com', 'domain: [example.com'));
    const r = await createApi('--group', 'cache', '--version', 'v1', '--kind', 'Memcached');
    expectOneLineError(r, /^PROJECT:\d+:\d+: error: malformed YAML/);
  });
});

describe('outside a project', () => {
  it('create api and edit say to run opgen init', async () => {
    expectOneLineError(await opgen(dir, 'create', 'api', '--group', 'cache', '--version', 'v1', '--kind', 'Memcached'), /^PROJECT: error: no PROJECT file in this directory \(run `opgen init` first/);
    expectOneLineError(await opgen(dir, 'edit', '--multigroup'), /^PROJECT: error: no PROJECT file/);
    expect(snapshot(dir)).toEqual({});
  });
});
