// A namespace-scoped operator that watches more namespaces than its own (PROJECT watchNamespaces) needs the
// manager's Role and a RoleBinding in each. They are kustomize resources in config/rbac: a Role per
// namespace with the rules of the manager Role the +kubebuilder:rbac markers give (`opgen generate`), and a
// binding to the controller-manager service account. config/default's `namespace:` moves every object into
// the operator's namespace, so each object carries an annotation naming its namespace and a PatchTransformer
// (config/rbac/watch-namespaces, listed under config/default's `transformers:`, which run after
// `namespace:`) moves it back.

export const WATCH_NAMESPACE_ANNOTATION = 'opgen.dev/watch-namespace';
/** The Roles and RoleBindings, relative to the rbac output folder. */
export const WATCH_ROLES_FILE = 'watch_namespaces.yaml';
/** The transformers' kustomization, relative to config/rbac. */
export const WATCH_TRANSFORMERS_DIR = 'watch-namespaces';
const RBAC = 'rbac.authorization.k8s.io/v1';

type Obj = Record<string, unknown>;

/** `watch-<namespace>-manager-role`: unique names, so kustomize never sees two objects with one id. */
export const watchRoleName = (namespace: string): string => `watch-${namespace}-manager-role`;

/** The manager's service account as config/default names it: its namePrefix and namespace. */
export interface ManagerAccount {
  name: string;
  namespace: string;
}

/**
 * The account from config/default's kustomization text (`namePrefix` + controller-manager, `namespace`),
 * else the scaffold's defaults: kustomize fixes a binding's subject only while the binding is in the
 * account's namespace, so a binding in another namespace names the account as it will be deployed.
 */
export function managerAccount(kustomization: string | undefined, fallback: ManagerAccount): ManagerAccount {
  const field = (key: string): string | undefined => new RegExp(`^${key}:\\s*["']?([^"'#\\s]+)`, 'm').exec(kustomization ?? '')?.[1];
  const prefix = field('namePrefix');
  return { name: prefix !== undefined ? `${prefix}controller-manager` : fallback.name, namespace: field('namespace') ?? fallback.namespace };
}

/** A Role with the manager's rules and its RoleBinding, per namespace, in the order given. */
export function watchNamespaceRoles(namespaces: readonly string[], rules: readonly unknown[], account: ManagerAccount): Obj[] {
  return namespaces.flatMap((namespace) => {
    // No metadata.namespace here: config/default's namespace: sets one, the transformer the right one.
    const metadata = (name: string): Obj => ({ annotations: { [WATCH_NAMESPACE_ANNOTATION]: namespace }, name });
    return [
      { apiVersion: RBAC, kind: 'Role', metadata: metadata(watchRoleName(namespace)), rules: [...rules] },
      {
        apiVersion: RBAC,
        kind: 'RoleBinding',
        metadata: metadata(`watch-${namespace}-manager-rolebinding`),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: watchRoleName(namespace) },
        subjects: [{ kind: 'ServiceAccount', name: account.name, namespace: account.namespace }],
      },
    ];
  });
}

/** One PatchTransformer per namespace, putting the objects annotated with it back into it. */
export function watchNamespaceTransformers(namespaces: readonly string[]): Obj[] {
  return namespaces.map((namespace) => ({
    apiVersion: 'builtin',
    kind: 'PatchTransformer',
    metadata: { name: `watch-namespace-${namespace}` },
    patch: JSON.stringify([{ op: 'replace', path: '/metadata/namespace', value: namespace }]),
    target: { annotationSelector: `${WATCH_NAMESPACE_ANNOTATION}=${namespace}` },
  }));
}

/** The rules of the manager's Role in `namespace` among generated roles; [] when the markers give none. */
export function managerRules(roles: readonly Obj[], namespace: string, roleName: string): unknown[] {
  const role = roles.find((r) => r.kind === 'Role' && (r.metadata as Obj | undefined)?.namespace === namespace && (r.metadata as Obj | undefined)?.name === roleName);
  return (role?.rules as unknown[] | undefined) ?? [];
}
