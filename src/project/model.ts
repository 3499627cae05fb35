// The PROJECT file's model: kubebuilder's PROJECT v3 shape, so kubebuilder veterans read it at a glance.

/** The only layout this opgen reads and writes. */
export const LAYOUT = 'ts.opgen.dev/v1';
export const PROJECT_FILE = 'PROJECT';

export interface ProjectConfig {
  version: '3';
  layout: string[];
  domain: string;
  projectName: string;
  repo?: string;
  /** APIs may live in several groups (types under src/api/<group>/<version>). */
  multigroup?: boolean;
  /**
   * The manager watches only WATCH_NAMESPACE and holds Roles, not ClusterRoles (`init --namespaced`,
   * `edit --namespaced`; kubebuilder v4.12's field of the same name).
   */
  namespaced?: boolean;
  /**
   * Namespaces a namespace-scoped operator watches besides its own (`edit --namespaced --watch-namespaces a,b`):
   * WATCH_NAMESPACE lists them and `opgen generate` writes the manager's Role and RoleBinding in each (an opgen field).
   */
  watchNamespaces?: string[];
  /**
   * Every replica is active and reconciles its share of the objects (`init --sharded`, `edit --sharded`):
   * createManager's `sharding: true`, replicas > 1 in config/manager (an opgen field).
   */
  sharded?: boolean;
  /**
   * Who provides the webhook serving certificate (`create webhook --cert-provider`, `edit --cert-provider`):
   * absent or 'cert-manager' (a Certificate and CA injection by cert-manager), 'self' (the manager keeps a
   * Secret and injects its CA itself, @opgen/runtime's webhook.selfCertificate). An opgen field.
   */
  certProvider?: 'cert-manager' | 'self';
  /**
   * The oldest Kubernetes the operator supports (`1.30` or `1.30.0`): `generate` checks CEL rules against
   * that version's API server and the OLM base CSV takes it as spec.minKubeVersion (an opgen field).
   */
  minKubeVersion?: string;
  /** The opgen version that ran `init`. */
  cliVersion?: string;
  /** Settings of other tools, kept as they are. */
  plugins?: Record<string, unknown>;
  resources: ResourceConfig[];
}

export interface ResourceConfig {
  group: string;
  domain: string;
  version: string;
  kind: string;
  /** Only when it differs from pluralize(kind). */
  plural?: string;
  /** The types module, relative to the project root, e.g. src/api/v1alpha1/memcached-types.ts. */
  path?: string;
  /**
   * A built-in Kubernetes kind (e.g. core/v1 Pod, apps/v1 Deployment) the project adds webhooks or a
   * controller to: typed by @opgen/runtime/kubernetes, no CRD.
   */
  core?: boolean;
  api?: { crdVersion: 'v1'; namespaced: boolean };
  controller?: boolean;
  /** Names of further controllers of this kind (`create api --controller-name`), each its own reconciler. */
  controllers?: string[];
  /** A kind from another project's API (`--external-api-path`, recorded in `path`): no CRD here. */
  external?: boolean;
  webhooks?: WebhooksConfig;
}

export interface WebhooksConfig {
  defaulting?: boolean;
  validation?: boolean;
  conversion?: boolean;
  /** Versions converted through this (hub) version by the conversion webhook. */
  spoke?: string[];
  /** Custom URL paths instead of /mutate-… and /validate-…. */
  defaultingPath?: string;
  validationPath?: string;
  webhookVersion: 'v1';
}

/** `group.domain` (or the group alone when the domain is empty), the API group of a resource. */
export function qualifiedGroup(r: Pick<ResourceConfig, 'group' | 'domain'>): string {
  if (r.domain === '') return r.group;
  if (r.group === '') return r.domain;
  return `${r.group}.${r.domain}`;
}

/** Folder of a group-version's types module: src/api/<version>, or src/api/<group>/<version> when multigroup. */
export function apiDir(project: Pick<ProjectConfig, 'multigroup'>, group: string, version: string): string {
  return project.multigroup ? `src/api/${group}/${version}` : `src/api/${version}`;
}

/** Folder of controllers: src/controller, or src/controller/<group> when multigroup. */
export function controllerDir(project: Pick<ProjectConfig, 'multigroup'>, group: string): string {
  return project.multigroup ? `src/controller/${group}` : 'src/controller';
}

/** The namespace config/default deploys the manager to (kustomize's `namespace:`): <projectName>-system. */
export function managerNamespace(project: Pick<ProjectConfig, 'projectName'>): string {
  return `${project.projectName}-system`;
}
