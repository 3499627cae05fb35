// RBAC: what the markers grant vs what the operator's service account may do in the cluster
// (SubjectAccessReview), and what each controller needs vs the markers (the marker to add).
import { pluralize } from '@opgen/runtime/pluralize';
import { qualifiedGroup, type ResourceConfig } from '../project/index.js';
import type { Finding } from './findings.js';
import { KubectlError, type Kubectl } from './kubectl.js';
import type { DoctorProject, RbacMarker } from './project.js';

export interface Permission {
  group: string;
  /** `memcacheds` or `memcacheds/status` */
  resource: string;
  verb: string;
  namespace?: string;
}

const describe = (p: Permission): string => `${p.verb} ${p.group === '' ? p.resource : `${p.resource}.${p.group}`}${p.namespace ? ` in ${p.namespace}` : ''}`;
const markerFor = (p: Permission): string => `// +kubebuilder:rbac:groups=${p.group === '' ? 'core' : p.group},resources=${p.resource},verbs=${p.verb}${p.namespace ? `,namespace=${p.namespace}` : ''}`;

/** What the controller of each PROJECT resource does: watch its kind, write its status, manage finalizers. */
export function controllerNeeds(resources: readonly ResourceConfig[]): Array<Permission & { kind: string }> {
  return resources
    .filter((r) => r.controller === true || (r.controllers?.length ?? 0) > 0)
    .flatMap((r) => {
      const group = r.core ? r.group.replace(/^core$/, '') : qualifiedGroup(r);
      const plural = r.plural ?? pluralize(r.kind).toLowerCase();
      return [
        ...['get', 'list', 'watch'].map((verb) => ({ group, resource: plural, verb, kind: r.kind })),
        ...['get', 'update', 'patch'].map((verb) => ({ group, resource: `${plural}/status`, verb, kind: r.kind })),
      ];
    });
}

function grants(m: RbacMarker, p: Permission): boolean {
  const has = (list: string[], v: string): boolean => list.includes('*') || list.includes(v);
  return has(m.groups, p.group) && has(m.resources, p.resource) && has(m.verbs, p.verb);
}

export function markerPermissions(markers: readonly RbacMarker[]): Array<Permission & { marker: RbacMarker }> {
  return markers.flatMap((m) =>
    m.groups.flatMap((group) => m.resources.flatMap((resource) => m.verbs.map((verb) => ({ group, resource, verb, marker: m, ...(m.namespace ? { namespace: m.namespace } : {}) })))));
}

export async function checkRbac(kubectl: Kubectl, project: DoctorProject): Promise<Finding[]> {
  const findings: Finding[] = [];
  const controllerFile = (kind: string): string => project.markers.find((m) => /controller/.test(m.position) && m.position.toLowerCase().includes(kind.toLowerCase()))?.position.replace(/:\d+:\d+$/, '') ?? 'the controller\'s file in src/';
  for (const need of controllerNeeds(project.config.resources)) {
    if (project.markers.some((m) => grants(m, need))) continue;
    findings.push({
      check: 'rbac', subject: describe(need), status: 'error',
      message: `the ${need.kind} controller needs it, but no +kubebuilder:rbac marker grants it`,
      fix: `add \`${markerFor(need)}\` to ${controllerFile(need.kind)}, then opgen generate rbac and apply config/rbac`,
    });
  }
  const { namespace, name } = project.serviceAccount;
  const user = `system:serviceaccount:${namespace}:${name}`;
  const permissions = markerPermissions(project.markers).filter((p) => p.verb !== '*' && p.resource !== '*');
  if (permissions.length === 0) return findings;
  const sa = await kubectl.getOptional(['serviceaccount', name, '-n', namespace]);
  if (!sa) {
    findings.push({
      check: 'rbac', subject: `serviceaccount ${namespace}/${name}`, status: 'warning',
      message: 'not found: the operator is not deployed here, so its permissions were not checked (run locally, it has yours)',
      fix: 'deploy it (kubectl apply -k config/default), or name the account with --service-account <namespace>/<name>',
    });
    return findings;
  }
  const reviews = permissions.map((p) => {
    const [resource, subresource] = p.resource.split('/') as [string, string | undefined];
    return {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
      spec: {
        user, groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
        resourceAttributes: { group: p.group, resource, ...(subresource ? { subresource } : {}), verb: p.verb, ...(p.namespace ? { namespace: p.namespace } : {}) },
      },
    };
  });
  // One kubectl call for every review; it prints one answer per object, in order.
  const r = await kubectl.run(['create', '-f', '-', '-o', 'jsonpath={.status.allowed}{"\\n"}'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: reviews }));
  if (r.code !== 0) {
    const err = new KubectlError(['create', 'subjectaccessreviews'], r);
    if (!err.forbidden) throw err;
    findings.push({
      check: 'rbac', subject: `serviceaccount ${namespace}/${name}`, status: 'warning',
      message: 'you may not create SubjectAccessReviews, so its permissions were not checked',
      fix: `ask a cluster admin to run opgen doctor, or check one permission with kubectl auth can-i <verb> <resource> --as ${user}`,
    });
    return findings;
  }
  const answers = r.stdout.split('\n');
  const denied = new Map<string, Finding>();
  permissions.forEach((p, i) => {
    if (answers[i] === 'true') return;
    const subject = describe(p);
    if (denied.has(subject)) return;
    denied.set(subject, {
      check: 'rbac', subject, status: 'error',
      message: `${user} may not, though marker \`${p.marker.text}\` (${p.marker.position}) asks for it`,
      fix: 'opgen generate rbac, then apply config/rbac (kubectl apply -k config/default) so the manager role and its binding grant it',
    });
  });
  findings.push(...denied.values());
  if (denied.size === 0) findings.push({ check: 'rbac', subject: `serviceaccount ${namespace}/${name}`, status: 'ok', message: `has every permission the ${project.markers.length} +kubebuilder:rbac markers ask for (${permissions.length} checked)` });
  return findings;
}
