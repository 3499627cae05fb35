// The tenant recipe (docs/multi-tenancy.md) on a real API server: its CRD and ClusterRole come from
// `opgen generate` over e2e/tenancy, the operator runs as a user holding only that ClusterRole, and the
// tenants' users are checked by the API server's own RBAC (real requests, client certificates with their
// groups), not by reading the objects back.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { createClient, createManager, isForbidden, silentLogger, type Client } from '@opgen/runtime';
import { corev1, rbacv1 } from '@opgen/runtime/kubernetes';
import { startTestEnv, type TestEnv } from '@opgen/runtime/envtest';
import { opgen } from '../../src/testdata/cli.js';
import { repoRoot, waitFor } from '../helpers.js';
import { Tenant } from './v1alpha1/tenant-types.js';
import { TENANT_LABEL, TenantReconciler } from './tenant-controller.js';

describe('tenant recipe: per-tenant Namespaces, Roles and RoleBindings', () => {
  let out: string;
  let env: TestEnv;
  let admin: Client;
  let clusterRole: rbacv1.ClusterRole;
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  let managerError: unknown;

  /** A user of the test API server in `groups`, allowed only what RBAC grants them. */
  const userClient = (name: string, groups: string[] = []): Client => createClient(env.addUser({ name, groups }));
  const configMap = (namespace: string, name: string): corev1.ConfigMap => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: { a: 'b' } });
  /** Binds the ClusterRole `name` to the user of the same name. */
  const bindToUser = (name: string): Promise<rbacv1.ClusterRoleBinding> => admin.create(rbacv1.ClusterRoleBinding, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name }],
  });
  const readyOf = async (name: string) => (await admin.get(Tenant, { name })).status?.conditions?.find((c) => c.type === 'Ready');

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'opgen-tenancy-'));
    const generated = await opgen(repoRoot, 'generate', 'crd', 'rbac', '--paths', 'e2e/tenancy', '--output-dir', out);
    expect(generated.code, `${generated.stdout}${generated.stderr}`).toBe(0);
    // The recipe as documentation code: it must compile under strict settings.
    const tsc = await execa(process.execPath, [join(repoRoot, 'node_modules/typescript/bin/tsc'), '-p', 'e2e/tenancy/tsconfig.json'], { cwd: repoRoot, reject: false, all: true });
    expect(tsc.exitCode, tsc.all).toBe(0);

    env = await startTestEnv({ crdPaths: [join(out, 'crd/bases')] });
    admin = createClient(env.kubeConfig);
    const [role] = parseAllDocuments(readFileSync(join(out, 'rbac/role.yaml'), 'utf8')).map((d) => d.toJS() as rbacv1.ClusterRole);
    clusterRole = role!;
    expect(clusterRole.kind).toBe('ClusterRole');
    await admin.create(rbacv1.ClusterRole, { ...clusterRole, metadata: { name: 'tenant-operator' } });
    await bindToUser('tenant-operator');

    const mgr = await createManager({ kubeConfig: env.addUser({ name: 'tenant-operator' }), logger: silentLogger() });
    new TenantReconciler(mgr.client).setupWithManager(mgr);
    running = mgr.start(stop.signal).catch((err: unknown) => void (managerError = err));
  }, 180_000);

  afterAll(async () => {
    stop.abort();
    await running;
    await env?.stop();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('sets up a tenant: labelled namespaces, Roles and RoleBindings owned by the Tenant', async () => {
    const acme = await admin.create(Tenant, {
      apiVersion: Tenant.apiVersion,
      kind: 'Tenant',
      metadata: { name: 'acme' },
      spec: { namespaces: ['acme-dev', 'acme-prod'], adminGroups: ['acme-admins'], viewerGroups: ['acme-auditors'] },
    });
    await waitFor(async () => (await readyOf('acme'))?.status === 'True', () => String(managerError ?? ''));
    expect((await admin.get(Tenant, { name: 'acme' })).status?.namespaces).toEqual(['acme-dev', 'acme-prod']);

    const owner = { apiVersion: Tenant.apiVersion, kind: 'Tenant', name: 'acme', uid: acme.metadata?.uid, controller: true, blockOwnerDeletion: true };
    for (const ns of ['acme-dev', 'acme-prod']) {
      const namespace = await admin.get(corev1.Namespace, { name: ns });
      expect(namespace.metadata?.labels?.[TENANT_LABEL]).toBe('acme');
      expect(namespace.metadata?.ownerReferences).toEqual([owner]);
      const roles = await admin.list(rbacv1.Role, { namespace: ns, labelSelector: { [TENANT_LABEL]: 'acme' } });
      expect(roles.items.map((r) => r.metadata?.name)).toEqual(['tenant-admin', 'tenant-viewer']);
      const bindings = await admin.list(rbacv1.RoleBinding, { namespace: ns, labelSelector: { [TENANT_LABEL]: 'acme' } });
      expect(bindings.items.map((b) => [b.metadata?.name, b.subjects?.map((s) => `${s.kind}/${s.name}`)])).toEqual([
        ['tenant-admin', ['Group/acme-admins']],
        ['tenant-viewer', ['Group/acme-auditors']],
      ]);
      for (const o of [...roles.items, ...bindings.items]) expect(o.metadata?.ownerReferences).toEqual([owner]);
    }
  });

  it("the API server lets each group do what its Role says, only in its tenant's namespaces", async () => {
    const alice = userClient('alice', ['acme-admins']);
    const bob = userClient('bob', ['acme-auditors']);
    const mallory = userClient('mallory', ['globex-admins']);
    await alice.create(corev1.ConfigMap, configMap('acme-dev', 'settings'));
    await alice.create(corev1.ConfigMap, configMap('acme-prod', 'settings'));
    await expect(alice.create(corev1.ConfigMap, configMap('default', 'settings'))).rejects.toSatisfy(isForbidden);
    await expect(alice.list(corev1.Secret, { namespace: 'acme-dev' })).rejects.toSatisfy(isForbidden);
    expect((await bob.list(corev1.ConfigMap, { namespace: 'acme-prod' })).items.map((c) => c.metadata?.name)).toContain('settings');
    await expect(bob.create(corev1.ConfigMap, configMap('acme-prod', 'bobs'))).rejects.toSatisfy(isForbidden);
    await expect(mallory.list(corev1.ConfigMap, { namespace: 'acme-dev' })).rejects.toSatisfy(isForbidden);
  });

  it('never takes over a namespace that is not the tenant\'s (another tenant\'s, or default)', async () => {
    await admin.create(Tenant, { apiVersion: Tenant.apiVersion, kind: 'Tenant', metadata: { name: 'globex' }, spec: { namespaces: ['globex-dev', 'acme-prod', 'default'], adminGroups: ['globex-admins'] } });
    await waitFor(async () => (await readyOf('globex'))?.reason === 'NamespaceTaken', () => String(managerError ?? ''));
    expect((await readyOf('globex'))?.message).toBe("not this tenant's: acme-prod, default");
    expect((await admin.get(Tenant, { name: 'globex' })).status?.namespaces).toEqual(['globex-dev']);
    expect((await admin.get(corev1.Namespace, { name: 'acme-prod' })).metadata?.labels?.[TENANT_LABEL]).toBe('acme');
    expect((await admin.get(corev1.Namespace, { name: 'default' })).metadata?.labels?.[TENANT_LABEL]).toBeUndefined();
    expect((await admin.list(rbacv1.RoleBinding, { namespace: 'default' })).items).toEqual([]);
    const mallory = userClient('mallory', ['globex-admins']);
    await mallory.create(corev1.ConfigMap, configMap('globex-dev', 'settings'));
    await expect(mallory.list(corev1.ConfigMap, { namespace: 'acme-prod' })).rejects.toSatisfy(isForbidden);
  });

  it('follows changes: a tenant without viewer groups loses the viewer RoleBindings', async () => {
    const acme = await admin.get(Tenant, { name: 'acme' });
    await admin.update(Tenant, { ...acme, spec: { ...acme.spec, viewerGroups: [] } });
    await waitFor(async () => (await admin.list(rbacv1.RoleBinding, { namespace: 'acme-prod', labelSelector: { [TENANT_LABEL]: 'acme' } })).items.length === 1, () => String(managerError ?? ''));
    const bob = userClient('bob', ['acme-auditors']);
    await expect(bob.list(corev1.ConfigMap, { namespace: 'acme-prod' })).rejects.toSatisfy(isForbidden);
    expect(managerError).toBeUndefined();
  });

  it('needs every permission it grants: without deployments in its ClusterRole, the tenant-admin Role is refused', async () => {
    // Kubernetes' RBAC escalation check, the reason for the deployments/configmaps markers.
    await admin.create(rbacv1.ClusterRole, {
      ...clusterRole,
      metadata: { name: 'weak-operator' },
      rules: (clusterRole.rules ?? []).filter((r) => !r.resources?.includes('deployments')),
    });
    await bindToUser('weak-operator');
    const weak = userClient('weak-operator');
    const role: rbacv1.Role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'tenant-admin-copy', namespace: 'acme-dev' }, rules: [{ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get'] }] };
    const refused = await weak.create(rbacv1.Role, role).then(() => undefined, (err: unknown) => err);
    expect(isForbidden(refused)).toBe(true);
    expect(String(refused)).toMatch(/attempting to grant RBAC permissions not currently held/);
    await userClient('tenant-operator').create(rbacv1.Role, role);
  });
});
