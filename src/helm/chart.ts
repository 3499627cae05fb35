// Builds a Helm chart from the objects `kubectl kustomize config/default` renders, in the layout of
// kubebuilder's helm/v2-alpha plugin: templates/<folder>/<name>.yaml per object, values.yaml whose
// defaults come from the rendered manager Deployment and from which optional parts config/default turns
// on, values.schema.json, NOTES.txt and _helpers.tpl. Every file comes from templates/helm; this module
// only chooses templates and prepares their data. The result is a map path → content; regenerate.ts
// merges it with the files on disk.
import { stringify as yamlStringify } from 'yaml';
import type { KubeObject } from '../kustomize/render.js';
import { renderPartial, renderTemplateFiles } from '../scaffold/index.js';
import { WATCH_NAMESPACE_ANNOTATION } from '../rbac/watch-namespaces.js';

export interface ChartInput {
  /** The chart's name and its helpers' prefix: the project name. */
  name: string;
  /** config/default rendered by kubectl kustomize. */
  objects: KubeObject[];
}

export interface GeneratedChart {
  /** Chart-relative path → content, sorted by path. */
  files: Map<string, string>;
  /** Written only when missing (Chart.yaml: the user owns its version fields). */
  writeOnce: Set<string>;
}

type Obj = Record<string, unknown>;

/** YAML as kubectl and kubebuilder print it: sequences not indented under their key, no line folding. */
const stringify = (value: unknown): string => yamlStringify(value, { indentSeq: false, lineWidth: 0 });

const RBAC = 'rbac.authorization.k8s.io/v1';
const MANAGER_SA = 'controller-manager';
/** The manager arguments the chart sets itself from metrics.*, webhook.* and manager.healthProbe. */
const CHART_ARGS = ['--metrics-bind-address', '--metrics-secure', '--metrics-cert-path', '--health-probe-bind-address', '--webhook-port', '--webhook-cert-path'];
/** Volumes the chart mounts itself (cert-manager's certificates). */
const CHART_VOLUMES = ['webhook-certs', 'metrics-certs'];
/**
 * The manager's variables under --cert-provider self (runtime selfCertificateEnv): the chart sets them
 * itself, to the names it gives the Secret, the Service and the webhook configurations.
 */
const SELF_CERT_ENV = ['WEBHOOK_CERT_SECRET', 'WEBHOOK_SERVICE_NAME', 'VALIDATING_WEBHOOK_CONFIGURATION', 'MUTATING_WEBHOOK_CONFIGURATION'];

export function buildChart(input: ChartInput): GeneratedChart {
  const { name, objects } = input;
  const deployment = objects.find((o) => o.kind === 'Deployment' && o.metadata?.labels?.['control-plane'] === 'controller-manager') ?? objects.find((o) => o.kind === 'Deployment');
  // kustomize's namePrefix, read off the manager's name (config/default sets it to "<project>-").
  const depName = deployment?.metadata?.name ?? '';
  const prefix = depName.endsWith(MANAGER_SA) ? depName.slice(0, -MANAGER_SA.length) : `${name}-`;
  const naming = new Naming(prefix);
  const has = (kind: string): boolean => objects.some((o) => o.kind === kind);
  const hasWebhooks = has('MutatingWebhookConfiguration') || has('ValidatingWebhookConfiguration') || objects.some((o) => o.kind === 'CustomResourceDefinition' && conversionOf(o) !== undefined);

  const self = selfCertOf(deployment, naming);

  const files = new Map<string, string>();
  const add = (set: string, data: Obj, placeholders?: Record<string, string>): void => {
    for (const f of renderTemplateFiles(`helm/${set}`, { data: { name, ...data }, placeholders })) {
      if (files.has(f.path)) throw new Error(`two chart files render to ${f.path}`);
      files.set(f.path, f.content.replace(/\s*$/, '\n'));
    }
  };

  // <plural>.<group> of every CRD, for NOTES.txt.
  const crdNames = objects
    .filter((o) => o.kind === 'CustomResourceDefinition')
    .map((o) => o.metadata?.name ?? '')
    .sort();
  add('chart', { hasWebhooks, crdNames, selfCert: self?.env ?? false, ...valuesOf(objects, deployment, naming) });
  if (hasWebhooks) add('webhook', { selfCert: self !== undefined });
  // The manager makes its own certificates: no cert-manager objects, no certManager toggle.
  if (self) for (const path of [...files.keys()].filter((p) => p.startsWith('templates/cert-manager/'))) files.delete(path);

  const consumed = new Set<KubeObject>();
  const fixed = (o: KubeObject): boolean =>
    // Objects the chart's own templates above stand for.
    o.kind === 'Namespace' ||
    o === deployment ||
    (o.kind === 'ServiceAccount' && naming.suffix(o) === MANAGER_SA) ||
    (o.kind === 'Service' && ['controller-manager-metrics-service', 'webhook-service'].includes(naming.suffix(o) ?? '')) ||
    (o.apiVersion === 'cert-manager.io/v1' && ['serving-cert', 'metrics-certs', 'selfsigned-issuer'].includes(naming.suffix(o) ?? '')) ||
    (o.kind === 'ServiceMonitor' && naming.suffix(o) === 'controller-manager-metrics-monitor') ||
    (o.kind === 'NetworkPolicy' && ['allow-metrics-traffic', 'allow-webhook-traffic'].includes(naming.suffix(o) ?? ''));
  for (const o of objects) if (fixed(o)) consumed.add(o);

  const roles = objects.filter((o) => o.apiVersion === RBAC && (o.kind === 'Role' || o.kind === 'ClusterRole'));
  const scopeOf = new Map<string, RoleScope>();
  for (const role of roles) {
    const scope = roleScope(role, naming);
    scopeOf.set(`${role.kind}/${role.metadata?.name}`, scope);
    const fixed = watchedNamespace(role);
    let body = bodyYaml(role, ['apiVersion', 'kind', 'metadata']);
    // The self-certificate roles name the Secret and configurations the manager writes: as the chart names them.
    if (self && naming.suffix(role)?.startsWith(SELF_CERT_ROLE)) body = self.renameIn(body, name);
    add(
      'role',
      { ...scope, ...naming.name(role), kind: role.kind, namespaced: role.kind === 'Role' && !scope.toggle && !fixed, fixedNamespace: fixed ?? false, body },
      { file: `${naming.fileName(role)}.yaml` },
    );
    consumed.add(role);
  }
  for (const binding of objects.filter((o) => o.apiVersion === RBAC && (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding'))) {
    const roleRef = binding.roleRef as { kind: string; name: string };
    const target = scopeOf.get(`${roleRef.kind}/${roleRef.name}`);
    // A binding follows its role: toggled with it, gated with it.
    const scope = target ?? { toggle: false, helpers: false, metricsAuth: false, gated: false };
    const fixed = watchedNamespace(binding);
    const subjects = ((binding.subjects as Obj[] | undefined) ?? []).map((s) =>
      s.kind === 'ServiceAccount' && s.name === `${prefix}${MANAGER_SA}` ? { manager: true, yaml: '' } : { manager: false, yaml: escapeGo(stringify([s]).trimEnd()) },
    );
    add(
      'binding',
      { ...scope, ...naming.name(binding), kind: binding.kind, namespaced: binding.kind === 'RoleBinding' && !scope.toggle && !fixed, fixedNamespace: fixed ?? false, roleRef: { toggle: scope.toggle, kind: roleRef.kind, ...naming.nameOf(roleRef.name) }, subjects },
      { file: `${naming.fileName(binding)}.yaml` },
    );
    consumed.add(binding);
  }

  for (const crd of objects.filter((o) => o.kind === 'CustomResourceDefinition')) {
    const spec = { ...(crd.spec as Obj) };
    const conversion = conversionOf(crd);
    if (conversion) delete spec.conversion;
    const annotations = omit(crd.metadata?.annotations ?? {}, ['cert-manager.io/inject-ca-from', 'helm.sh/resource-policy']);
    add(
      'crd',
      {
        selfCert: self !== undefined,
        crdName: crd.metadata?.name ?? '',
        spec: indent(escapeGo(stringify(spec).trimEnd()), 2),
        annotations: annotationsYaml(annotations),
        conversion: conversion ? { path: conversion.path, reviewVersions: block(conversion.reviewVersions, 8) } : false,
      },
      { file: `${crd.metadata?.name}.yaml` },
    );
    consumed.add(crd);
  }

  for (const config of objects.filter((o) => o.kind === 'MutatingWebhookConfiguration' || o.kind === 'ValidatingWebhookConfiguration')) {
    const webhooks = ((config.webhooks as Obj[] | undefined) ?? []).map((w) => {
      const { clientConfig, ...rest } = w as { clientConfig?: { service?: { path?: string; port?: number } } };
      return { path: clientConfig?.service?.path ?? '/', port: clientConfig?.service?.port ?? false, rest: indent(escapeGo(stringify(rest).trimEnd()), 2) };
    });
    const annotations = omit(config.metadata?.annotations ?? {}, ['cert-manager.io/inject-ca-from']);
    add(
      'webhook-configuration',
      { kind: config.kind, ...naming.name(config), webhooks, annotations: annotationsYaml(annotations), selfCert: self !== undefined },
      { file: `${naming.fileName(config)}.yaml` },
    );
    consumed.add(config);
  }

  // Whatever else config/default renders (objects you added to config/) ships as it is.
  for (const o of objects.filter((x) => !consumed.has(x))) {
    const annotations = o.metadata?.annotations ?? {};
    add(
      'extra',
      {
        apiVersion: o.apiVersion ?? '',
        kind: o.kind ?? '',
        ...naming.name(o),
        namespaced: o.metadata?.namespace !== undefined,
        annotations: annotationsYaml(annotations),
        body: bodyYaml(o, ['apiVersion', 'kind', 'metadata']),
      },
      { file: `${(o.kind ?? 'object').toLowerCase()}-${naming.fileName(o)}.yaml` },
    );
  }

  const sorted = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { files: sorted, writeOnce: new Set(['Chart.yaml']) };
}

/**
 * The namespace of the manager's Role (or binding) in an extra watched namespace (PROJECT watchNamespaces,
 * src/rbac/watch-namespaces.ts): it stays there, not in the release namespace.
 */
/** The prefix (after kustomize's) of config/selfcert's roles. */
const SELF_CERT_ROLE = 'webhook-cert-';

interface SelfCert {
  /** The manager's self-certificate variables, each a list of chart names (helm-name partial data). */
  env: { name: string; names: { suffix: string; literalName: string }[] }[];
  /** A role body with `- <kustomize name>` list items of those objects as the chart names them. */
  renameIn(body: string, chartName: string): string;
}

/**
 * --cert-provider self (the manager's container has WEBHOOK_CERT_SECRET): each name in its variables
 * becomes `<fullname>-<suffix>`. The Secret (which kustomize does not prefix: no object of config/
 * makes it) gets the release prefix too, so two releases in a namespace keep two Secrets.
 */
function selfCertOf(deployment: KubeObject | undefined, naming: Naming): SelfCert | undefined {
  const containers = (((deployment?.spec as Obj | undefined)?.template as Obj | undefined)?.spec as Obj | undefined)?.containers as Obj[] | undefined;
  const manager = containers?.find((c) => c.name === 'manager') ?? containers?.[0];
  const vars = ((manager?.env as { name?: string; value?: string }[] | undefined) ?? []).filter((e) => SELF_CERT_ENV.includes(e.name ?? ''));
  if (!vars.some((e) => e.name === 'WEBHOOK_CERT_SECRET' && e.value)) return undefined;
  const renamed = new Map<string, string>();
  const env = vars
    .map((e) => {
      const names = String(e.value ?? '')
        .split(',')
        .map((n) => n.trim())
        .filter(Boolean)
        .map((literalName) => {
          const suffix = naming.nameOf(literalName).suffix || literalName;
          renamed.set(literalName, suffix);
          return { suffix, literalName };
        });
      return { name: e.name!, names };
    })
    .filter((e) => e.names.length > 0);
  return {
    env,
    renameIn: (body, chartName) =>
      body.replace(/^(\s*- )(\S+)$/gm, (line, item: string, n: string) =>
        renamed.has(n) ? item + renderPartial('helm-name', { name: chartName, suffix: renamed.get(n), literalName: n }) : line,
      ),
  };
}

function watchedNamespace(o: KubeObject): string | undefined {
  return o.metadata?.annotations?.[WATCH_NAMESPACE_ANNOTATION] !== undefined ? o.metadata?.namespace : undefined;
}

interface RoleScope {
  /** Role or ClusterRole by rbac.namespaced. */
  toggle: boolean;
  /** Only with rbac.helpers.enabled. */
  helpers: boolean;
  /** Only with metrics.enabled and metrics.secure. */
  metricsAuth: boolean;
  gated: boolean;
}

/**
 * The manager's own ClusterRoles (role.yaml from the rbac markers, the CRD helper roles) follow
 * rbac.namespaced. Leader election is always a Role in the release namespace; the metrics
 * authentication roles stay ClusterRoles (TokenReviews, SubjectAccessReviews and non-resource URLs have
 * no namespace), as does any role with non-resource URLs.
 */
function roleScope(role: KubeObject, naming: Naming): RoleScope {
  const suffix = naming.suffix(role) ?? '';
  const metricsAuth = suffix === 'metrics-auth-role' || suffix === 'metrics-reader';
  // The self-certificate roles keep their kind: webhook configurations and CRDs have no namespace.
  if (suffix.startsWith(SELF_CERT_ROLE)) return { toggle: false, helpers: false, metricsAuth: false, gated: false };
  const helpers = /-(admin|editor|viewer)-role$/.test(suffix);
  const nonResource = ((role.rules as Obj[] | undefined) ?? []).some((r) => r.nonResourceURLs !== undefined);
  // The manager's and the helper roles follow the toggle whatever config/ made of them (a namespaced
  // project renders Roles).
  const toggle = !metricsAuth && !nonResource && (role.kind === 'ClusterRole' || suffix === 'manager-role' || helpers);
  return { toggle, helpers, metricsAuth, gated: helpers || metricsAuth };
}

/** Names under kustomize's namePrefix become `<fullname>-<suffix>` in the chart; others stay as they are. */
class Naming {
  constructor(private readonly prefix: string) {}

  suffix(o: KubeObject): string | undefined {
    return this.suffixOf(o.metadata?.name ?? '');
  }

  nameOf(n: string): { suffix: string; literalName: string } {
    return { suffix: this.suffixOf(n) ?? '', literalName: n };
  }

  private suffixOf(n: string): string | undefined {
    return n.startsWith(this.prefix) && n.length > this.prefix.length ? n.slice(this.prefix.length) : undefined;
  }

  name(o: KubeObject): { suffix: string; literalName: string } {
    return this.nameOf(o.metadata?.name ?? '');
  }

  fileName(o: KubeObject): string {
    return (this.suffix(o) ?? o.metadata?.name ?? 'unnamed').replace(/[^A-Za-z0-9._-]/g, '-');
  }
}

function conversionOf(crd: KubeObject): { path: string; reviewVersions: unknown } | undefined {
  const conversion = (crd.spec as { conversion?: { strategy?: string; webhook?: { clientConfig?: { service?: { path?: string } }; conversionReviewVersions?: unknown } } } | undefined)?.conversion;
  if (conversion?.strategy !== 'Webhook') return undefined;
  return { path: conversion.webhook?.clientConfig?.service?.path ?? '/convert', reviewVersions: conversion.webhook?.conversionReviewVersions ?? ['v1'] };
}

/** values.yaml's defaults: what config/default renders. */
function valuesOf(objects: KubeObject[], deployment: KubeObject | undefined, naming: Naming): Obj {
  const pod = ((deployment?.spec as Obj | undefined)?.template as Obj | undefined)?.spec as Obj | undefined;
  const containers = (pod?.containers as Obj[] | undefined) ?? [];
  const manager = containers.find((c) => c.name === 'manager') ?? containers[0] ?? {};
  const args = ((manager.args as string[] | undefined) ?? []).map(String);
  const argValue = (flag: string): string | undefined => args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
  const port = (address: string | undefined, fallback: number): number => {
    const n = Number(address?.split(':').pop());
    return Number.isInteger(n) && n > 0 ? n : fallback;
  };
  const image = String(manager.image ?? 'controller:latest');
  const at = image.includes('@') ? -1 : image.lastIndexOf(':');
  const repository = at > image.lastIndexOf('/') ? image.slice(0, at) : image;
  const tag = at > image.lastIndexOf('/') ? image.slice(at + 1) : '';
  const metricsService = objects.find((o) => o.kind === 'Service' && naming.suffix(o) === 'controller-manager-metrics-service');
  const metricsAddress = argValue('--metrics-bind-address');
  const metricsEnabled = metricsService !== undefined || (metricsAddress !== undefined && metricsAddress !== '0');
  const servicePort = ((metricsService?.spec as Obj | undefined)?.ports as Obj[] | undefined)?.[0]?.port;
  // WATCH_NAMESPACE from the pod's namespace is the chart's own (rbac.namespaced); a list (extra watched
  // namespaces) is kept as manager.env sets it.
  const env = ((manager.env as Obj[] | undefined) ?? []).filter((e) => (e.name !== 'WATCH_NAMESPACE' || e.valueFrom === undefined) && !SELF_CERT_ENV.includes(String(e.name)));
  const managerRole = objects.find((o) => o.apiVersion === RBAC && naming.suffix(o) === 'manager-role');
  return {
    replicas: (deployment?.spec as Obj | undefined)?.replicas ?? 1,
    imageRepository: JSON.stringify(repository),
    imageTag: tag === '' ? '' : JSON.stringify(tag),
    pullPolicy: String(manager.imagePullPolicy ?? 'IfNotPresent'),
    args: block(args.filter((a) => !CHART_ARGS.includes(a.split('=')[0]!)), 4),
    healthProbePort: port(argValue('--health-probe-bind-address'), 8081),
    env: block(env, 4),
    podSecurityContext: block(pod?.securityContext ?? {}, 4),
    securityContext: block(manager.securityContext ?? {}, 4),
    resources: block(manager.resources ?? {}, 4),
    affinity: block(pod?.affinity ?? {}, 4),
    nodeSelector: block(pod?.nodeSelector ?? {}, 4),
    tolerations: block(pod?.tolerations ?? [], 4),
    extraVolumes: block(((pod?.volumes as Obj[] | undefined) ?? []).filter((v) => !CHART_VOLUMES.includes(String(v.name))), 4),
    extraVolumeMounts: block(((manager.volumeMounts as Obj[] | undefined) ?? []).filter((v) => !CHART_VOLUMES.includes(String(v.name))), 4),
    terminationGracePeriodSeconds: pod?.terminationGracePeriodSeconds ?? 10,
    rbacNamespaced: managerRole?.kind === 'Role',
    metricsEnabled,
    metricsPort: typeof servicePort === 'number' ? servicePort : port(metricsAddress, 8443),
    metricsSecure: argValue('--metrics-secure') !== 'false',
    certManagerEnabled: objects.some((o) => o.apiVersion === 'cert-manager.io/v1'),
    webhookPort: Number(argValue('--webhook-port') ?? 9443),
    prometheusEnabled: objects.some((o) => o.kind === 'ServiceMonitor'),
    networkPolicyEnabled: objects.some((o) => o.kind === 'NetworkPolicy'),
  };
}

/** A YAML value after `key:`: ` {}` / ` []` when empty, else a block on the next lines, indented. */
function block(value: unknown, spaces: number): string {
  if (Array.isArray(value) && value.length === 0) return ' []';
  if (value !== null && typeof value === 'object' && Object.keys(value).length === 0) return ' {}';
  return `\n${indent(escapeGo(stringify(value).trimEnd()), spaces)}`;
}

/** Annotations as the templates' indented block under `annotations:`; '' when there are none. */
function annotationsYaml(annotations: Record<string, unknown>): string {
  return Object.keys(annotations).length > 0 ? indent(escapeGo(stringify(annotations).trimEnd()), 4) : '';
}

function bodyYaml(o: KubeObject, without: string[]): string {
  const rest = omit(o as Obj, without);
  return Object.keys(rest).length === 0 ? '' : escapeGo(stringify(rest).trimEnd());
}

function omit<T extends Record<string, unknown>>(o: T, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces);
  return text
    .split('\n')
    .map((l) => (l === '' ? l : pad + l))
    .join('\n');
}

/** Text from config/ that contains Go template delimiters (a CRD description, say) must print as is. */
function escapeGo(text: string): string {
  return text.replace(/\{\{|\}\}/g, (d) => (d === '{{' ? '{{ "{{" }}' : '{{ "}}" }}'));
}
