// Extra watched namespaces of a namespace-scoped operator: `opgen edit --watch-namespaces a,b` records them
// in PROJECT, sets WATCH_NAMESPACE and wires config/; `opgen generate` writes the manager Role and RoleBinding
// in each. The rendered config/default (real `kubectl kustomize`) is applied to a real kube-apiserver
// (envtest), which judges SubjectAccessReviews for the manager's service account: every marker verb in each
// watched namespace, nothing in an unwatched one, nothing cluster-wide.
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, stringify } from 'yaml';
import { createClient, groupVersion, type Client } from '@opgen/runtime';
import { corev1 } from '@opgen/runtime/kubernetes';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgen as opgenIn, opgenOk, type CliResult } from '../../testdata/cli.js';
import { renderKustomize, type KubeObject } from '../../kustomize/render.js';
import { parseProject } from '../../project/index.js';
import { snapshot, tempDir } from '../../testdata/files.js';
import { ciTool } from '../../testdata/ci-tools.js';

const PROJECT = 'tenant-operator';
const OWN = `${PROJECT}-system`;
const SA = `system:serviceaccount:${OWN}:${PROJECT}-controller-manager`;

let dir: string;
let cleanup: () => void;
const opgen = (...argv: string[]): Promise<CliResult> => opgenIn(dir, ...argv);
const ok = (...argv: string[]): Promise<CliResult> => opgenOk(dir, ...argv);
const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const render = (): Promise<KubeObject[]> => renderKustomize({ cwd: dir, dir: 'config/default' });
type Rule = { apiGroups: string[]; resources: string[]; verbs: string[] };
const rulesOf = (objects: KubeObject[], kind: string, namespace: string, name: string): Rule[] =>
  (objects.find((o) => o.kind === kind && o.metadata?.namespace === namespace && o.metadata?.name === name) as { rules?: Rule[] } | undefined)?.rules ?? [];

beforeAll(async () => {
  ({ dir, cleanup } = tempDir('opgen-watch-ns-', PROJECT));
  await ok('init', '--domain', 'example.com', '--namespaced', '--skip-install');
  await ok('create', 'api', '--group', 'tenancy', '--version', 'v1alpha1', '--kind', 'Tenant');
  // A marker for a built-in resource too, namespaced as `edit --namespaced` writes them.
  const controller = 'src/controller/tenant-controller.ts';
  writeFileSync(join(dir, controller), read(controller).replace('// +kubebuilder:rbac:groups=events.k8s.io', `// +kubebuilder:rbac:groups=core,resources=configmaps,verbs=get;list;watch;create,namespace=${OWN}\n// +kubebuilder:rbac:groups=events.k8s.io`));
  await ok('generate');
}, 240_000);
afterAll(() => cleanup());

describe('opgen edit --watch-namespaces', () => {
  let before: Record<string, string>;

  it('refuses a cluster-scoped project, bad names, its own namespace and duplicates: one line, nothing written', async () => {
    before = snapshot(dir);
    for (const [value, pattern] of [
      ['Team-A', /^--watch-namespaces: error: 'Team-A' is not a namespace name \(list namespace names/],
      [`team-a,${OWN}`, /^--watch-namespaces: error: 'tenant-operator-system' is the operator's own namespace, which it always watches/],
      ['team-a,team-a', /^--watch-namespaces: error: 'team-a' is listed twice/],
    ] as const) {
      const r = await opgen('edit', '--watch-namespaces', value);
      expect(r.code).toBe(1);
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(pattern);
    }
    const cluster = await opgen('edit', '--namespaced=false', '--watch-namespaces', 'team-a');
    expect(cluster.code).toBe(1);
    expect(cluster.stderr.trimEnd()).toBe("--watch-namespaces: error: needs a namespace-scoped project (a cluster-scoped operator watches every namespace) (add --namespaced)");
    expect(snapshot(dir)).toEqual(before);
  });

  it('records the namespaces, sets WATCH_NAMESPACE, and generate writes the manager Role and binding in each, deterministically', async () => {
    await ok('edit', '--watch-namespaces', 'team-a,team-b');
    expect(parseProject(read('PROJECT')).watchNamespaces).toEqual(['team-a', 'team-b']);
    await ok('generate');
    const generated = read('config/rbac/watch_namespaces.yaml');
    await ok('generate');
    expect(read('config/rbac/watch_namespaces.yaml')).toBe(generated);
    expect((await opgen('generate', '--check')).code).toBe(0);

    const objects = await render();
    const managerRules = rulesOf(objects, 'Role', OWN, `${PROJECT}-manager-role`);
    expect(managerRules.length).toBeGreaterThan(0);
    for (const ns of ['team-a', 'team-b']) {
      expect(rulesOf(objects, 'Role', ns, `${PROJECT}-watch-${ns}-manager-role`)).toEqual(managerRules);
      const binding = objects.find((o) => o.kind === 'RoleBinding' && o.metadata?.namespace === ns) as { roleRef: unknown; subjects: unknown } | undefined;
      expect(binding?.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: `${PROJECT}-watch-${ns}-manager-role` });
      expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: `${PROJECT}-controller-manager`, namespace: OWN }]);
    }
    // No new cluster-scoped object: the ClusterRoles are the scaffold's metrics ones.
    expect(objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata?.name).sort()).toEqual([`${PROJECT}-metrics-auth-role`, `${PROJECT}-metrics-reader`]);
    const deployment = objects.find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: { name: string; env?: unknown[] }[] } } } };
    const env = deployment.spec.template.spec.containers.find((c) => c.name === 'manager')?.env;
    expect(env).toEqual([
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'WATCH_NAMESPACE', value: '$(POD_NAMESPACE),team-a,team-b' },
    ]);

    // A new marker reaches every watched namespace's Role: --check says so, generate writes it.
    const controller = 'src/controller/tenant-controller.ts';
    writeFileSync(join(dir, controller), read(controller).replace('verbs=get;list;watch;create,namespace', 'verbs=get;list;watch;create;delete,namespace'));
    const check = await opgen('generate', '--check');
    expect(check.stdout).toContain('stale: config/rbac/watch_namespaces.yaml (run opgen generate)');
    await ok('generate');
    const after = await render();
    for (const ns of ['team-a', 'team-b']) expect(rulesOf(after, 'Role', ns, `${PROJECT}-watch-${ns}-manager-role`)).toEqual(rulesOf(after, 'Role', OWN, `${PROJECT}-manager-role`));
  });

  describe('on a real API server', () => {
    let env: TestEnv;
    let admin: Client;
    beforeAll(async () => {
      env = await startTestEnv({ crdPaths: [join(dir, 'config/crd/bases')] });
      admin = createClient(env.kubeConfig);
      for (const name of [OWN, 'team-a', 'team-b', 'team-c']) await admin.create(corev1.Namespace, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      const rbac = (await render()).filter((o) => ['ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'].includes(o.kind ?? ''));
      const file = join(dir, '..', 'rbac.yaml');
      writeFileSync(file, rbac.map((o) => `---\n${stringify(o)}`).join(''));
      const applied = await execa('kubectl', ['apply', '--server-side', '-f', file, '--kubeconfig', env.kubeconfigPath], { reject: false, all: true });
      expect(applied.exitCode, applied.all).toBe(0);
    }, 240_000);
    afterAll(async () => env?.stop());

    const SubjectAccessReview = groupVersion('authorization.k8s.io', 'v1').kind<KubeObject & { spec: unknown; status?: { allowed: boolean } }>('SubjectAccessReview', { plural: 'subjectaccessreviews', namespaced: false });
    async function allowed(namespace: string, group: string, resource: string, verb: string): Promise<boolean> {
      const [plural, subresource] = resource.split('/');
      const review = await admin.create(SubjectAccessReview, {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: {},
        spec: { user: SA, groups: ['system:serviceaccounts', `system:serviceaccounts:${OWN}`, 'system:authenticated'], resourceAttributes: { namespace, group, resource: plural, ...(subresource ? { subresource } : {}), verb } },
      });
      return review.status?.allowed === true;
    }

    it('allows every marker verb in its own and each watched namespace, and none in another namespace or cluster-wide', async () => {
      const rules = rulesOf(await render(), 'Role', OWN, `${PROJECT}-manager-role`);
      const asked: string[] = [];
      for (const rule of rules) {
        for (const group of rule.apiGroups) {
          for (const resource of rule.resources) {
            for (const verb of rule.verbs) {
              for (const ns of [OWN, 'team-a', 'team-b']) expect(await allowed(ns, group, resource, verb), `${verb} ${group}/${resource} in ${ns}`).toBe(true);
              expect(await allowed('team-c', group, resource, verb), `${verb} ${group}/${resource} in team-c`).toBe(false);
              expect(await allowed('', group, resource, verb), `${verb} ${group}/${resource} cluster-wide`).toBe(false);
              asked.push(`${verb} ${group}/${resource}`);
            }
          }
        }
      }
      expect(asked).toContain('delete /configmaps');
      expect(asked).toContain('watch tenancy.example.com/tenants');
      // What no marker grants stays denied in a watched namespace.
      expect(await allowed('team-a', '', 'secrets', 'get')).toBe(false);
      expect(await allowed('team-a', '', 'configmaps', 'deletecollection')).toBe(false);
    }, 240_000);
  });

  it('the Helm chart keeps the Roles in their namespaces and WATCH_NAMESPACE; the bundle leaves the namespaces to OLM', async () => {
    // In a copy: the chart and bundle are not part of the round trip below.
    const original = dir;
    dir = join(original, '..', `${PROJECT}-copy`);
    cpSync(original, dir, { recursive: true });
    try {
      await chartAndBundle();
    } finally {
      dir = original;
    }
  }, 240_000);

  async function chartAndBundle(): Promise<void> {
    await ok('generate', 'helm');
    const helm = await execa(ciTool('OPGEN_HELM', 'helm.sh'), ['template', 'rel', 'dist/chart', '--namespace', 'rel-system'], { cwd: dir, reject: false, all: true });
    expect(helm.exitCode, helm.all).toBe(0);
    const chart = parseAllDocuments(helm.stdout).map((d) => d.toJS() as KubeObject | null).filter((o): o is KubeObject => o !== null);
    for (const ns of ['team-a', 'team-b']) {
      const role = chart.find((o) => o.kind === 'Role' && o.metadata?.namespace === ns) as { rules?: Rule[] } | undefined;
      expect(role?.rules).toEqual(chart.find((o) => o.kind === 'Role' && o.metadata?.name === `rel-${PROJECT}-manager-role`)?.rules as Rule[]);
      const binding = chart.find((o) => o.kind === 'RoleBinding' && o.metadata?.namespace === ns) as { subjects?: unknown } | undefined;
      expect(binding?.subjects).toEqual([{ kind: 'ServiceAccount', name: `rel-${PROJECT}-controller-manager`, namespace: 'rel-system' }]);
    }
    const deployment = chart.find((o) => o.kind === 'Deployment') as { spec: { template: { spec: { containers: { name: string; env?: unknown[] }[] } } } };
    expect(deployment.spec.template.spec.containers.find((c) => c.name === 'manager')?.env).toEqual([
      { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
      { name: 'WATCH_NAMESPACE', value: '$(POD_NAMESPACE),team-a,team-b' },
    ]);

    await ok('generate', 'kustomize', 'manifests');
    // The base CSV marks MultiNamespace (an OperatorGroup with several targetNamespaces) while there are some.
    const base = `config/manifests/bases/${PROJECT}.clusterserviceversion.yaml`;
    expect(read(base)).toMatch(/supported: true\n\s*type: MultiNamespace/);
    await ok('edit', '--watch-namespaces', '');
    expect(read(base)).toMatch(/supported: false\n\s*type: MultiNamespace/);
    await ok('edit', '--watch-namespaces', 'team-a,team-b');
    await ok('generate');
    await ok('generate', 'bundle', '--version', '0.1.0');
    const csv = parse(read(`bundle/manifests/${PROJECT}.clusterserviceversion.yaml`)) as { spec: { install: { spec: { permissions: { rules: Rule[] }[]; deployments: { spec: { template: { spec: { containers: { name: string; env?: unknown[] }[] } } } }[] } } } };
    const install = csv.spec.install.spec;
    expect((csv.spec as unknown as { installModes: unknown[] }).installModes).toContainEqual({ supported: true, type: 'MultiNamespace' });
    // Under OLM the install picks the namespaces: WATCH_NAMESPACE from the OperatorGroup's targetNamespaces.
    expect(install.deployments[0]!.spec.template.spec.containers.find((c) => c.name === 'manager')?.env).toContainEqual({ name: 'WATCH_NAMESPACE', valueFrom: { fieldRef: { fieldPath: "metadata.annotations['olm.targetNamespaces']" } } });
    const permitted = install.permissions.flatMap((p) => p.rules);
    for (const rule of rulesOf(await render(), 'Role', OWN, `${PROJECT}-manager-role`)) expect(permitted).toContainEqual(rule);
    expect(readdirSync(join(dir, 'bundle/manifests')).filter((f) => f.includes('watch-'))).toEqual([]);
  }

  it("--watch-namespaces '' takes it all back: PROJECT, config/ and the generated file as before", async () => {
    // Back to the marker the first generate saw, so the tree can be compared with the snapshot.
    const controller = 'src/controller/tenant-controller.ts';
    writeFileSync(join(dir, controller), read(controller).replace('verbs=get;list;watch;create;delete,namespace', 'verbs=get;list;watch;create,namespace'));
    await ok('edit', '--watch-namespaces', '');
    await ok('generate');
    expect(snapshot(dir)).toEqual(before);
  });
});
