// The tenant recipe of docs/multi-tenancy.md: for each Tenant, its Namespaces, a tenant-admin and a
// tenant-viewer Role in each, and RoleBindings of the tenant's groups to them, all labelled with the
// tenant id and owned by the Tenant (deleting the Tenant lets the garbage collector remove them).
// e2e/tenancy/tenant-controller.test.ts runs it on a real API server as a user holding only the
// ClusterRole `opgen generate` makes from the markers below.
import { isNotFound, Result, setConditions, setControllerReference, type Client, type Manager, type ReconcileContext, type Reconciler, type Request } from '@opgen/runtime';
import { corev1, rbacv1 } from '@opgen/runtime/kubernetes';
import { Tenant } from './v1alpha1/tenant-types.js';

/** The label on every object made for a tenant: its id (the Tenant's name). */
export const TENANT_LABEL = 'tenancy.example.com/tenant';
const FIELD_MANAGER = 'tenant-operator';

const WORKLOADS = [
  { apiGroups: ['apps'], resources: ['deployments'] },
  { apiGroups: [''], resources: ['configmaps', 'services'] },
];
const ADMIN_RULES: rbacv1.PolicyRule[] = WORKLOADS.map((r) => ({ ...r, verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }));
const VIEWER_RULES: rbacv1.PolicyRule[] = WORKLOADS.map((r) => ({ ...r, verbs: ['get', 'list', 'watch'] }));

// Its own API.
// +kubebuilder:rbac:groups=tenancy.example.com,resources=tenants,verbs=get;list;watch
// +kubebuilder:rbac:groups=tenancy.example.com,resources=tenants/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=tenancy.example.com,resources=tenants/finalizers,verbs=update
// What it creates: Namespaces (cluster-scoped, hence a ClusterRole), Roles and RoleBindings in them.
// +kubebuilder:rbac:groups=core,resources=namespaces,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=rbac.authorization.k8s.io,resources=roles;rolebindings,verbs=get;list;watch;create;update;patch;delete
// Kubernetes lets nobody grant a permission they do not hold (RBAC escalation prevention): the operator
// holds every rule of ADMIN_RULES, or creating the tenant-admin Role is refused.
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=core,resources=configmaps;services,verbs=get;list;watch;create;update;patch;delete

export class TenantReconciler implements Reconciler {
  constructor(private readonly client: Client) {}

  async reconcile(req: Request, ctx: ReconcileContext): Promise<Result> {
    let tenant: Tenant;
    try {
      tenant = await this.client.get(Tenant, req, { signal: ctx.signal });
    } catch (err) {
      if (isNotFound(err)) return Result.done(); // its objects go with it (owner references)
      throw err;
    }
    const id = tenant.metadata?.name ?? req.name;
    const ready: string[] = [];
    const taken: string[] = [];
    for (const namespace of tenant.spec.namespaces) {
      if (!(await this.claimNamespace(tenant, id, namespace, ctx))) {
        taken.push(namespace);
        continue;
      }
      await this.applyRole(tenant, id, namespace, 'tenant-admin', ADMIN_RULES, tenant.spec.adminGroups, ctx);
      await this.applyRole(tenant, id, namespace, 'tenant-viewer', VIEWER_RULES, tenant.spec.viewerGroups ?? [], ctx);
      ready.push(namespace);
    }

    tenant.status = { ...tenant.status, namespaces: ready };
    setConditions(
      tenant,
      taken.length === 0
        ? { type: 'Ready', status: 'True', reason: 'Provisioned', message: `${ready.length} namespaces ready` }
        : { type: 'Ready', status: 'False', reason: 'NamespaceTaken', message: `not this tenant's: ${taken.join(', ')}` },
    );
    await this.client.status().update(Tenant, tenant, { signal: ctx.signal });
    return Result.done();
  }

  /**
   * Creates the namespace for the tenant, or keeps it if it is already the tenant's. A namespace that
   * exists without this tenant's label (kube-system, another tenant's) is never taken over: binding the
   * tenant's groups there would hand them someone else's objects.
   */
  private async claimNamespace(tenant: Tenant, id: string, name: string, ctx: ReconcileContext): Promise<boolean> {
    const existing = await this.client.get(corev1.Namespace, { name }, { signal: ctx.signal }).catch((err: unknown) => {
      if (isNotFound(err)) return undefined;
      throw err;
    });
    if (existing && existing.metadata?.labels?.[TENANT_LABEL] !== id) {
      ctx.log.info('namespace belongs to someone else; not taking it over', { namespace: name });
      return false;
    }
    const ns: corev1.Namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { [TENANT_LABEL]: id } } };
    setControllerReference(tenant, ns, Tenant);
    await this.client.apply(corev1.Namespace, ns, { fieldManager: FIELD_MANAGER, force: true, signal: ctx.signal });
    return true;
  }

  /** A Role with `rules` in the namespace and a RoleBinding of `groups` to it (none: no binding). */
  private async applyRole(tenant: Tenant, id: string, namespace: string, name: string, rules: rbacv1.PolicyRule[], groups: string[], ctx: ReconcileContext): Promise<void> {
    const labels = { [TENANT_LABEL]: id };
    const role: rbacv1.Role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name, namespace, labels }, rules };
    setControllerReference(tenant, role, Tenant);
    await this.client.apply(rbacv1.Role, role, { fieldManager: FIELD_MANAGER, force: true, signal: ctx.signal });

    const binding: rbacv1.RoleBinding = {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name, namespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: groups.map((group) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group })),
    };
    setControllerReference(tenant, binding, Tenant);
    if (groups.length > 0) {
      await this.client.apply(rbacv1.RoleBinding, binding, { fieldManager: FIELD_MANAGER, force: true, signal: ctx.signal });
    } else {
      await this.client.delete(rbacv1.RoleBinding, { namespace, name }, { signal: ctx.signal }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
  }

  setupWithManager(mgr: Manager): void {
    mgr.controllerFor(Tenant).owns(corev1.Namespace).owns(rbacv1.Role).owns(rbacv1.RoleBinding).named('tenant').complete(this);
  }
}
