// Namespace-scoped projects: `opgen init --namespaced`, `opgen edit --namespaced[=false]`, and the
// refusals when the project needs a ClusterRole. The rendered config/ comes from the real
// `kubectl kustomize`; the role from `opgen generate` (whose RBAC output the parity suite checks against
// controller-gen).
import { appendFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { opgen as opgenIn, opgenOk, type CliResult } from '../../testdata/cli.js';
import { renderKustomize, type KubeObject } from '../../kustomize/render.js';
import { parseProject } from '../../project/index.js';
import { snapshot, tempDir } from '../../testdata/files.js';


let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir('opgen-ns-', 'tenant-operator')));
afterEach(() => cleanup());

const opgen = (...argv: string[]): Promise<CliResult> => opgenIn(dir, ...argv);

const ok = (...argv: string[]): Promise<CliResult> => opgenOk(dir, ...argv);

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const render = (): Promise<KubeObject[]> => renderKustomize({ cwd: dir, dir: 'config/default' });
const names = (objects: KubeObject[], ...kinds: string[]): string[] =>
  objects.filter((o) => kinds.includes(o.kind ?? '')).map((o) => `${o.kind}/${o.metadata?.namespace ?? ''}/${o.metadata?.name}`).sort();

/** A refusal a user sees: exit 1, one line naming where and the fix, nothing written. */
async function expectRefused(argv: string[], pattern: RegExp): Promise<void> {
  const before = snapshot(dir);
  const r = await opgen(...argv);
  expect(r.code).toBe(1);
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr.trimEnd()).toMatch(pattern);
  expect(r.stdout).toBe('');
  expect(snapshot(dir)).toEqual(before);
}

const manager = (objects: KubeObject[]) => {
  const deployment = objects.find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: { name: string; env?: unknown[] }[] } } } } | undefined;
  return deployment?.spec.template.spec.containers.find((c) => c.name === 'manager');
};

const WATCH_NAMESPACE_ENV = { name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } };

describe('opgen init --namespaced', () => {
  it('gives Roles bound in the operator namespace, WATCH_NAMESPACE from the pod, and namespace= on the scaffolded markers', async () => {
    await ok('init', '--domain', 'example.com', '--namespaced', '--skip-install');
    expect(parseProject(read('PROJECT')).namespaced).toBe(true);
    expect(read('PROJECT')).toMatch(/^namespaced: true$/m);
    expect(read('src/main.ts')).toContain('namespaces: watchNamespaces(process.env.WATCH_NAMESPACE)');

    await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'Tenant');
    const markers = read('src/controller/tenant-controller.ts').split('\n').filter((l) => l.includes('+kubebuilder:rbac:'));
    expect(markers).toHaveLength(4);
    for (const m of markers) expect(m).toMatch(/,namespace=tenant-operator-system$/);

    const generated = await ok('generate');
    expect(generated.stdout).not.toContain('warning');
    const role = read('config/rbac/role.yaml');
    expect(role).toMatch(/^kind: Role$/m);
    expect(role).not.toMatch(/ClusterRole/);

    const objects = await render();
    const ns = 'tenant-operator-system';
    // Only the metrics endpoint's authentication keeps cluster-wide roles: TokenReviews and
    // SubjectAccessReviews exist only at cluster scope (kubebuilder's --namespaced keeps them too).
    expect(names(objects, 'ClusterRole', 'ClusterRoleBinding')).toEqual([
      'ClusterRole//tenant-operator-metrics-auth-role',
      'ClusterRole//tenant-operator-metrics-reader',
      'ClusterRoleBinding//tenant-operator-metrics-auth-rolebinding',
    ]);
    expect(names(objects, 'Role', 'RoleBinding')).toEqual([
      `Role/${ns}/tenant-operator-leader-election-role`,
      `Role/${ns}/tenant-operator-manager-role`,
      `Role/${ns}/tenant-operator-tenant-admin-role`,
      `Role/${ns}/tenant-operator-tenant-editor-role`,
      `Role/${ns}/tenant-operator-tenant-viewer-role`,
      `RoleBinding/${ns}/tenant-operator-leader-election-rolebinding`,
      `RoleBinding/${ns}/tenant-operator-manager-rolebinding`,
    ]);
    const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata?.name === 'tenant-operator-manager-rolebinding') as { roleRef: unknown; subjects: unknown[] } | undefined;
    expect(binding?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'tenant-operator-manager-role' });
    expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: 'tenant-operator-controller-manager', namespace: ns }]);
    expect(manager(objects)?.env).toEqual([WATCH_NAMESPACE_ENV]);
  });

  it('opgen generate warns about a marker without namespace=: its ClusterRole would be bound by nothing', async () => {
    await ok('init', '--domain', 'example.com', '--namespaced', '--skip-install');
    await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'Tenant');
    const file = 'src/controller/tenant-controller.ts';
    const line = read(file).split('\n').length;
    appendFileSync(join(dir, file), '// +kubebuilder:rbac:groups=core,resources=secrets,verbs=get\n');
    const r = await ok('generate');
    expect(r.stdout.split('\n').filter((l) => l.startsWith('warning'))).toEqual([
      `warning: ${file}:${line}:4: +kubebuilder:rbac without namespace= makes a ClusterRole, which a namespace-scoped project (PROJECT namespaced: true) does not bind (add ,namespace=tenant-operator-system, or bind it yourself)`,
    ]);
  });

  it('refuses a cluster-scoped kind or a cluster-scoped built-in kind later, writing nothing', async () => {
    await ok('init', '--domain', 'example.com', '--namespaced', '--skip-install');
    await expectRefused(['create', 'api', '--group', 'tenancy', '--version', 'v1', '--kind', 'Quota', '--namespaced=false'], /^--namespaced: error: a cluster-scoped kind Quota cannot be watched with Roles \(.*opgen edit --namespaced=false/);
    await expectRefused(['create', 'api', '--group', 'core', '--version', 'v1', '--kind', 'Namespace', '--resource=false'], /^--kind: error: Namespace \(namespaces\) is cluster-scoped and cannot be watched with Roles/);
  });
});

describe('opgen edit --namespaced', () => {
  beforeEach(async () => {
    await ok('init', '--domain', 'example.com', '--skip-install');
    await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'Tenant');
    // A controller for a built-in namespaced kind: its markers switch too.
    await ok('create', 'api', '--group', 'apps', '--version', 'v1', '--kind', 'Deployment', '--resource=false');
  });

  it('switches a cluster-scoped project and back; --namespaced=false restores every file', async () => {
    const cluster = snapshot(dir);
    const r = await ok('edit', '--namespaced');
    expect(r.stdout).toContain('UPDATE src/controller/tenant-controller.ts');
    expect(r.stdout).toContain('npm run manifests');
    expect(parseProject(read('PROJECT')).namespaced).toBe(true);
    for (const file of ['src/controller/tenant-controller.ts', 'src/controller/deployment-controller.ts']) {
      const markers = read(file).split('\n').filter((l) => l.includes('+kubebuilder:rbac:'));
      expect(markers.length).toBeGreaterThan(0);
      for (const m of markers) expect(m, file).toMatch(/,namespace=tenant-operator-system$/);
    }
    // The manager's env is added in place; the rest of manager.yaml is untouched.
    const before = cluster['config/manager/manager.yaml']!.split('\n');
    const after = read('config/manager/manager.yaml').split('\n');
    expect(after.filter((l) => !before.includes(l)).map((l) => l.trim())).toEqual([
      '# The namespaces the manager watches (comma-separated; empty: all). Its own by default, where',
      '# config/rbac binds its Role.',
      'env:',
      '- name: WATCH_NAMESPACE',
      'valueFrom:',
      'fieldRef:',
      'fieldPath: metadata.namespace',
    ]);

    await ok('generate');
    const objects = await render();
    expect(names(objects, 'ClusterRole', 'ClusterRoleBinding').filter((n) => !n.includes('metrics'))).toEqual([]);
    expect(names(objects, 'Role')).toContain('Role/tenant-operator-system/tenant-operator-manager-role');
    expect(manager(objects)?.env).toEqual([WATCH_NAMESPACE_ENV]);
    const role = objects.find((o) => o.kind === 'Role' && o.metadata?.name === 'tenant-operator-manager-role') as { rules: { resources: string[] }[] };
    expect(role.rules.flatMap((rule) => rule.resources)).toEqual(expect.arrayContaining(['tenants', 'deployments', 'events']));

    await ok('edit', '--namespaced=false');
    await ok('generate');
    const back = snapshot(dir);
    // Everything returns to the cluster-scoped files, except the manifests `opgen generate` wrote.
    for (const [path, content] of Object.entries(cluster)) if (!path.startsWith('config/rbac/role.yaml')) expect(back[path], path).toBe(content);
    expect(read('config/rbac/role.yaml')).toMatch(/^kind: ClusterRole$/m);
    expect(read('config/rbac/role.yaml')).not.toMatch(/namespace:/);
  });

  it("the base CSV's installModes follow: OwnNamespace when namespaced, AllNamespaces when not", async () => {
    await ok('generate', 'kustomize', 'manifests');
    const csv = 'config/manifests/bases/tenant-operator.clusterserviceversion.yaml';
    const modes = (): Record<string, boolean> => Object.fromEntries([...read(csv).matchAll(/supported: (true|false)\s*\n\s*type: (\w+)/g)].map((m) => [m[2], m[1] === 'true']));
    expect(modes()).toEqual({ OwnNamespace: false, SingleNamespace: false, MultiNamespace: false, AllNamespaces: true });
    const cluster = read(csv);
    await ok('edit', '--namespaced');
    expect(modes()).toEqual({ OwnNamespace: true, SingleNamespace: false, MultiNamespace: false, AllNamespaces: false });
    // What generate kustomize manifests would write for a new namespaced project, and it keeps them.
    await ok('generate', 'kustomize', 'manifests');
    expect(modes()).toEqual({ OwnNamespace: true, SingleNamespace: false, MultiNamespace: false, AllNamespaces: false });
    await ok('edit', '--namespaced=false');
    expect(read(csv)).toBe(cluster);
  });

  it('--dry-run lists the changes and writes nothing', async () => {
    const before = snapshot(dir);
    const r = await ok('edit', '--namespaced', '--dry-run');
    expect(r.stdout).toContain('UPDATE config/rbac/role_binding.yaml');
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses a project with a cluster-scoped kind, naming its scope marker', async () => {
    await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'TenantClass', '--namespaced=false');
    const types = read('src/api/v1alpha1/tenant-class-types.ts').split('\n');
    const line = types.findIndex((l) => l.includes('scope=Cluster')) + 1;
    await expectRefused(['edit', '--namespaced'], new RegExp(`^src/api/v1alpha1/tenant-class-types\\.ts:${line}:\\d+: error: TenantClass \\(tenancy/v1alpha1\\) is cluster-scoped.*\\(keep the project cluster-scoped, or drop scope=Cluster`));
  });

  it('refuses RBAC markers only a ClusterRole can grant: cluster-scoped resources, non-resource URLs', async () => {
    const file = 'src/controller/tenant-controller.ts';
    const lineCount = read(file).split('\n').length;
    appendFileSync(join(dir, file), '// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch\n');
    await expectRefused(['edit', '--namespaced'], new RegExp(`^${file.replaceAll('.', '\\.')}:${lineCount}:4: error: \\+kubebuilder:rbac for namespaces needs a ClusterRole \\(namespaces are cluster-scoped\\).*\\(remove the marker, or keep the project cluster-scoped\\)$`));
    rmSync(join(dir, file));
    await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'Tenant', '--controller', '--resource=false', '--force');
    appendFileSync(join(dir, file), '// +kubebuilder:rbac:urls=/metrics,verbs=get\n');
    await expectRefused(['edit', '--namespaced'], /^src\/controller\/tenant-controller\.ts:\d+:4: error: \+kubebuilder:rbac for non-resource URLs \(\/metrics\) needs a ClusterRole/);
  });
});
