// `opgen create api`: the types module, controller, test, sample, roles and kustomize wiring of one kind,
// then the controller's registration in src/main.ts and the resource's record in PROJECT.
import { posix } from 'node:path';
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { checkDns1123Label, checkDns1123Subdomain, pluralize } from '../../naming/index.js';
import { checkGvkFlags } from '../shared/gvk-flags.js';
import { apiDir, controllerDir, loadProject, managerNamespace, qualifiedGroup, saveProject, type ProjectConfig, type ResourceConfig } from '../../project/index.js';
import { clusterScopedResource, typedVersions } from '../../common/kubernetes-builtins.js';
import { CORE_GROUP_NAMES, coreApiGroup } from '../create-webhook/core-groups.js';
import { insertInto, renderPartial, renderTemplates, type Tree } from '../../scaffold/index.js';
import { importPath, kebab, variableName } from '../shared/names.js';
import { sourceHeader, stageAndCommit } from '../shared/run-in-tree.js';
import { hasStorageVersion, markStorageVersion } from '../shared/storage-version.js';

export interface CreateApiOptions {
  group?: string;
  version?: string;
  kind?: string;
  plural?: string;
  namespaced: boolean;
  resource: boolean;
  controller: boolean;
  force: boolean;
  dryRun: boolean;
  /** A second (third, ...) controller of one kind gets its own name, file and reconciler class. */
  controllerName?: string;
  /** Import specifier of the types module of a kind another project owns (`--resource=false` only). */
  externalApiPath?: string;
  /** The API group's domain for an external kind (group.domain), e.g. example.com. */
  externalApiDomain?: string;
  /** A Helm chart serves the kind (folder, .tgz, repo/name, oci://): src/helm-operator does the rest. */
  helmChart?: string;
  helmChartVersion?: string;
  /** An Ansible role (true: a new skeleton; a folder: copied in) or playbook serves the kind: src/ansible-operator. */
  ansibleRole?: string | boolean;
  ansiblePlaybook?: string;
  /** With helmChart: the Kubernetes version the chart is rendered for. */
  kubeVersion?: string;
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

/** opgen's own earlier spelling, still accepted. */
const GROUP_ALIASES: Record<string, string> = { rbac: 'rbac.authorization' };

/**
 * The built-in group a --group names (aliases resolved, named as kubebuilder names them), with the versions
 * @opgen/runtime/kubernetes types (data/kubernetes-builtins.json): the module is
 * @opgen/runtime/kubernetes/<group's first label><version>, e.g. rbacv1. Undefined for other groups.
 */
function typedBuiltin(group: string): { group: string; apiGroup: string; versions: string[] } | undefined {
  const name = Object.hasOwn(GROUP_ALIASES, group) ? GROUP_ALIASES[group]! : group;
  const apiGroup = coreApiGroup(name);
  const versions = apiGroup === undefined ? [] : typedVersions(apiGroup);
  return apiGroup !== undefined && versions.length > 0 ? { group: name, apiGroup, versions } : undefined;
}

/** What kind of resource the controller reconciles: this project's own, a built-in, or another project's. */
type Origin = { type: 'owned' } | { type: 'core'; apiGroup: string; typesImport: string } | { type: 'external'; typesImport: string; domain: string };

function originOf(o: CreateApiOptions, gvk: Gvk): Origin {
  if (o.externalApiPath !== undefined) {
    return { type: 'external', typesImport: o.externalApiPath, domain: o.externalApiDomain ?? '' };
  }
  if (o.resource) return { type: 'owned' };
  const core = typedBuiltin(gvk.group);
  if (!core) return { type: 'owned' };
  if (!core.versions.includes(gvk.version)) {
    throw new OpgenError(`@opgen/runtime/kubernetes has no typed kinds for ${core.apiGroup || 'core'}/${gvk.version}`, { flag: '--version' }, `use ${core.versions.join(' or ')}, or --external-api-path for your own types module`);
  }
  return { type: 'core', apiGroup: core.apiGroup, typesImport: `@opgen/runtime/kubernetes/${core.group.split('.')[0]}${gvk.version}` };
}

export async function createApiCommand(ctx: CommandContext, o: CreateApiOptions): Promise<number> {
  if (o.helmChart !== undefined || o.helmChartVersion !== undefined || o.kubeVersion !== undefined) {
    const { createHelmApi } = await import('./helm-chart.js');
    return createHelmApi(ctx, o);
  }
  if (o.ansibleRole !== undefined || o.ansiblePlaybook !== undefined) {
    const { createAnsibleApi } = await import('./ansible.js');
    return createAnsibleApi(ctx, o);
  }
  const gvk = validateFlags(o);
  const origin = originOf(o, gvk);
  let version: NewVersion | undefined;
  stageAndCommit(ctx, o.dryRun, (tree) => {
    const project = loadProject(tree);
    const existing = checkAgainstProject(project, gvk, o, origin);
    version = origin.type === 'owned' && o.resource ? newVersionOf(tree, project, gvk, o) : undefined;
    scaffold(tree, project, gvk, version?.controllerAt ? { ...o, controller: false } : o, existing, origin);
  });
  if (o.dryRun) return 0;
  if (!version) {
    ctx.out('Next: implement your new API and generate the manifests (CRDs, RBAC) with:');
    ctx.out('$ npm run manifests');
    return 0;
  }
  // A second version of a kind: what was (not) done, and the way to the hub, each step a command that works as printed.
  const { storage, controllerAt, others } = version;
  const { group, version: v, kind } = gvk;
  if (controllerAt) ctx.out(`${kind} already has a controller (${controllerAt.file}, reconciling ${group}/${controllerAt.version}): created the ${v} resource only.`);
  ctx.out(`${storage.version} stays the storage version (+kubebuilder:storageversion on ${kind} in ${storage.path}) until you move it; the CRD now serves ${[...others.map((x) => x.version), v].join(' and ')}.`);
  ctx.out(`Next: fill in the ${v} types and generate the manifests (CRDs, RBAC) with:`);
  ctx.out('$ npm run manifests');
  if (versionPriority(v) > versionPriority(storage.version)) {
    ctx.out(`When ${v} is ready, make it the hub and storage version, converting ${others.map((x) => x.version).join(', ')} through it, with:`);
    ctx.out(`$ npx opgen create webhook --group ${group} --version ${v} --kind ${kind} --conversion --spoke ${others.map((x) => x.version).join(',')}`);
    if (controllerAt) ctx.out(`then move the controller to the hub: import ${kind} from '${version.hubImport}' in ${controllerAt.file} and its test.`);
  } else {
    // An older version added beside a newer one: the newer stays the hub.
    const spokes = [...others.filter((x) => x.version !== storage.version).map((x) => x.version), v];
    ctx.out(`To convert ${spokes.join(', ')} through the hub ${storage.version}, run:`);
    ctx.out(`$ npx opgen create webhook --group ${group} --version ${storage.version} --kind ${kind} --conversion --spoke ${spokes.join(',')}`);
  }
  ctx.out('The whole migration, stored objects included: docs/versions.md');
  return 0;
}

/** Kubernetes' version order (v1 > v1beta2 > v1beta1 > v1alpha1 > other names), as a number to compare. */
function versionPriority(version: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(version);
  if (!m) return 0;
  const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
  return stage * 1e8 + Number(m[1]) * 1e4 + Number(m[3] ?? 0);
}

/** A new version of a kind the project already has in other versions. */
interface NewVersion {
  /** The other versions of the kind (PROJECT order). */
  others: ResourceConfig[];
  /** The version whose types carry +kubebuilder:storageversion (after this command). */
  storage: { version: string; path: string };
  /** The kind's controller, when one exists for another version: this command then creates no second one. */
  controllerAt?: { version: string; file: string };
  /** The new version's types module, as the controller would import it. */
  hubImport: string;
}

/**
 * For a kind that exists in other versions: keeps (or makes) one of them the storage version, so that
 * `generate` has exactly one, and finds the kind's controller, which stays where it is.
 */
function newVersionOf(tree: Tree, project: ProjectConfig, gvk: Gvk, o: CreateApiOptions): NewVersion | undefined {
  const kindFile = kebab(gvk.kind);
  const others = project.resources.filter((r) => r.group === gvk.group && r.kind === gvk.kind && r.version !== gvk.version && r.api && !r.core && !r.external);
  if (others.length === 0) return undefined;
  const typesOf = (r: ResourceConfig): string => r.path ?? `${apiDir(project, r.group, r.version)}/${kindFile}-types.ts`;
  const marked = others.find((r) => hasStorageVersion(tree, typesOf(r)));
  // The first version stays the storage version until the user moves it (create webhook --conversion does).
  const storage = marked ?? others[0]!;
  if (!marked) markStorageVersion(tree, typesOf(storage), gvk.kind);
  const owner = others.find((r) => r.controller);
  const ctrlDir = controllerDir(project, gvk.group);
  const newTypes = `${apiDir(project, gvk.group, gvk.version)}/${kindFile}-types.ts`;
  // Only the default controller collides (same file and class); a named one (--controller-name) has its own.
  const controllerAt = owner && o.controller && o.controllerName === undefined && !o.force
    ? { version: owner.version, file: `${ctrlDir}/${kindFile}-controller.ts` }
    : undefined;
  return {
    others, storage: { version: storage.version, path: typesOf(storage) }, hubImport: importPath(ctrlDir, newTypes),
    ...(controllerAt ? { controllerAt } : {}),
  };
}

function validateFlags(o: CreateApiOptions): Gvk {
  const gvk = checkGvkFlags(o, {
    checkKind: (kind) => {
      if (SCAFFOLD_NAMES.has(kind)) {
        throw new OpgenError(`kind "${kind}" clashes with a name the scaffolded code imports from @opgen/runtime`, { flag: '--kind' }, `choose another kind name, e.g. My${kind}`);
      }
    },
    // A built-in group may hold a dot (rbac.authorization); the project's own groups are one DNS label.
    acceptGroup: (group) => o.resource === false && Boolean(typedBuiltin(group)),
  });
  if (!o.resource && !o.controller) {
    throw new OpgenError('nothing to create: both --resource and --controller are off', { flag: '--resource' }, 'leave at least one of them on');
  }
  if (o.externalApiPath !== undefined && o.resource) {
    throw new OpgenError("cannot be used when creating an API in the project (--resource=true)", { flag: '--external-api-path' }, 'add --resource=false to scaffold only a controller for the external kind');
  }
  if (o.externalApiPath !== undefined && (o.externalApiPath === '' || /\s/.test(o.externalApiPath))) {
    throw new OpgenError(`"${o.externalApiPath}" is not an import specifier`, { flag: '--external-api-path' }, 'give the module that exports the kind, e.g. @example/widgets-api or ./src/external/widget-types.js');
  }
  if (o.externalApiDomain !== undefined) {
    if (o.externalApiPath === undefined) throw new OpgenError('requires --external-api-path', { flag: '--external-api-domain' }, 'pass --external-api-path <module> too');
    const domainProblem = checkDns1123Subdomain(o.externalApiDomain);
    if (domainProblem) throw new OpgenError(`invalid domain "${o.externalApiDomain}": it ${domainProblem}`, { flag: '--external-api-domain' });
  }
  if (o.controllerName !== undefined) {
    if (!o.controller) throw new OpgenError('names a controller, but --controller is off', { flag: '--controller-name' }, 'drop --controller=false');
    const nameProblem = checkDns1123Label(o.controllerName);
    if (nameProblem) throw new OpgenError(`invalid controller name "${o.controllerName}": it ${nameProblem}`, { flag: '--controller-name' }, 'use lower-case letters, digits and dashes, e.g. memcached-backup');
  }
  return gvk;
}

/** Names the scaffolded types module, controller and test import or declare; a kind of the same name would not compile. */
const SCAFFOLD_NAMES = new Set(['Client', 'Condition', 'GroupVersion', 'ListMeta', 'Manager', 'ObjectMeta', 'ReconcileContext', 'Reconciler', 'Request', 'Result']);

/** Checks the resource against PROJECT; returns its existing entry, if any. */
function checkAgainstProject(project: ProjectConfig, gvk: Gvk, o: CreateApiOptions, origin: Origin): ResourceConfig | undefined {
  const qualified = qualifiedGroup({ group: gvk.group, domain: project.domain });
  if (origin.type === 'owned') {
    const subdomainProblem = checkDns1123Subdomain(qualified);
    if (subdomainProblem) throw new OpgenError(`invalid API group "${qualified}": it ${subdomainProblem}`, { flag: '--group' });
  }

  if (project.namespaced) refuseClusterScopedIn(project, gvk, o, origin);
  const existing = project.resources.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
  if (existing && !o.force) {
    const named = o.controllerName !== undefined;
    const what = o.resource && existing.api ? 'API'
      : o.controller && !named && existing.controller ? 'controller'
        : named && existing.controllers?.includes(o.controllerName!) ? `controller "${o.controllerName}" of` : undefined;
    if (what) {
      throw new OpgenError(
        `${what} ${gvk.group}/${gvk.version}, Kind=${gvk.kind} already exists`,
        { flag: named ? '--controller-name' : '--kind' },
        named || what !== 'controller' ? 'pass --force to scaffold it again (its files are overwritten)' : 'pass --controller-name <name> for a second controller of this kind, or --force to scaffold it again',
      );
    }
  }
  if (existing && o.plural !== undefined && (existing.plural ?? pluralize(existing.kind)) !== gvk.plural && !o.force) {
    throw new OpgenError(`${gvk.kind} is recorded with plural "${existing.plural ?? pluralize(existing.kind)}"`, { flag: '--plural' });
  }
  // Built-in and external kinds live in their own groups; only this project's APIs need one group (or multigroup).
  const otherGroup = project.resources.find((r) => r.group !== gvk.group && !r.core && !r.external);
  if (origin.type === 'owned' && otherGroup && !project.multigroup) {
    throw new OpgenError(
      `the project's APIs are in group "${otherGroup.group}"; a second group needs a multi-group layout`,
      { flag: '--group' },
      'run `opgen edit --multigroup` first (new APIs then go to src/api/<group>/<version>)',
    );
  }
  if (origin.type === 'owned' && !o.resource && !existing?.api) {
    throw new OpgenError(
      `no API ${gvk.group}/${gvk.version}, Kind=${gvk.kind} in this project for the controller to reconcile`,
      { flag: '--resource' },
      `leave --resource on to create the types, use a built-in group (${CORE_GROUP_NAMES.filter((g) => typedBuiltin(g)).join(', ')}), or pass --external-api-path for another project's types`,
    );
  }
  return existing;
}

/** A namespace-scoped project holds only Roles: a cluster-scoped kind would need a ClusterRole. */
function refuseClusterScopedIn(project: ProjectConfig, gvk: Gvk, o: CreateApiOptions, origin: Origin): void {
  const fix = 'a namespace-scoped project (PROJECT namespaced: true) holds only Roles; run `opgen edit --namespaced=false` first, or keep the kind namespaced';
  if (o.resource && !o.namespaced) {
    throw new OpgenError(`a cluster-scoped kind ${gvk.kind} cannot be watched with Roles`, { flag: '--namespaced' }, fix);
  }
  if (origin.type === 'core' && clusterScopedResource(origin.apiGroup, gvk.plural)) {
    throw new OpgenError(`${gvk.kind} (${gvk.plural}) is cluster-scoped and cannot be watched with Roles`, { flag: '--kind' }, fix);
  }
}

/** `memcached-backup` → `MemcachedBackup`. */
function pascal(name: string): string {
  return name.split('-').map((p) => p.charAt(0).toUpperCase() + p.slice(1)).join('');
}

function scaffold(tree: Tree, project: ProjectConfig, gvk: Gvk, o: CreateApiOptions, existing: ResourceConfig | undefined, origin: Origin): void {
  const qualified = origin.type === 'core' ? origin.apiGroup
    : origin.type === 'external' ? qualifiedGroup({ group: gvk.group, domain: origin.domain })
      : qualifiedGroup({ group: gvk.group, domain: project.domain });
  const kindLower = gvk.kind.toLowerCase();
  const kindFile = kebab(gvk.kind);
  const typesDir = existing?.path ? posix.dirname(existing.path) : apiDir(project, gvk.group, gvk.version);
  const typesPath = origin.type === 'owned' ? existing?.path ?? `${typesDir}/${kindFile}-types.ts` : undefined;
  // A named controller gets its own file and class: src/controller/<name>-controller.ts, <Name>Reconciler.
  const controllerFile = o.controllerName ?? kindFile;
  const ctrlDir = controllerDir(project, gvk.group);
  const sampleFile = `${gvk.group}_${gvk.version}_${kindLower}`;
  const rolePrefix = project.multigroup ? `${gvk.group}_${kindLower}` : kindLower;
  const namespaced = o.resource ? o.namespaced : (existing?.api?.namespaced ?? true);
  const scopeMarker = namespaced ? [] : ['scope=Cluster'];
  const pathMarker = gvk.plural !== pluralize(gvk.kind) ? [`path=${gvk.plural}`] : [];
  const resourceArgs = [...pathMarker, ...scopeMarker];

  const data = {
    projectName: project.projectName,
    group: gvk.group,
    version: gvk.version,
    kind: gvk.kind,
    kindLower,
    kindFile,
    plural: gvk.plural,
    qualifiedGroup: qualified,
    namespaced,
    resourceMarker: resourceArgs.length > 0 ? `+kubebuilder:resource:${resourceArgs.join(',')}` : '',
    header: sourceHeader(tree.read('hack/boilerplate.ts.txt')),
    varName: variableName(gvk.kind),
    controllerName: o.controllerName ?? kindLower,
    reconciler: `${o.controllerName ? pascal(o.controllerName) : gvk.kind}Reconciler`,
    // RBAC markers name the core group `core` (controller-gen's spelling of "").
    rbacGroup: qualified === '' ? 'core' : qualified,
    // A namespace-scoped project's markers carry namespace=, so they become a Role (as kubebuilder's).
    rbacNamespace: project.namespaced ? `,namespace=${managerNamespace(project)}` : '',
    projectNamespaced: project.namespaced === true,
    // Only this project's kinds have a CRD here, so only they can be created freely in the test.
    ownsResource: origin.type === 'owned',
    typesImport: origin.type === 'owned' ? importPath(ctrlDir, typesPath!) : origin.type === 'core' ? origin.typesImport : externalImport(ctrlDir, origin.typesImport),
    envtestImport: importPath(ctrlDir, 'test/envtest.ts'),
    controllerImport: importPath('src', `${ctrlDir}/${controllerFile}-controller.ts`),
    sampleFile,
    rolePrefix,
    roleName: rolePrefix.replaceAll('_', '-'),
  };
  const placeholders = { apiDir: typesDir, kindFile, controllerDir: ctrlDir, sampleFile, rolePrefix };

  if (o.resource) {
    renderTemplates(tree, 'api/resource', { data, placeholders, force: o.force });
    insertInto(tree, 'config/crd/kustomization.yaml', 'crdkustomizeresource', renderPartial('crd-resource', data));
    insertInto(tree, 'config/samples/kustomization.yaml', 'manifestskustomizesamples', renderPartial('sample-resource', data));
    insertInto(tree, 'config/rbac/kustomization.yaml', 'rbac', renderPartial('rbac-roles', data));
    insertInto(tree, 'config/default/kustomization.yaml', 'crd', renderPartial('default-crd', data));
  }
  if (o.controller) {
    renderTemplates(tree, 'api/controller', { data: { ...data, kindFile: controllerFile }, placeholders: { ...placeholders, kindFile: controllerFile }, force: o.force });
    insertInto(tree, 'src/main.ts', 'imports', renderPartial('main-import', data));
    insertInto(tree, 'src/main.ts', 'controllers', renderPartial('main-controller', data));
  }

  const controllers = [...(existing?.controllers ?? []), ...(o.controllerName && !existing?.controllers?.includes(o.controllerName) ? [o.controllerName] : [])];
  const record: ResourceConfig = {
    group: gvk.group,
    domain: origin.type === 'owned' ? project.domain : origin.type === 'external' ? origin.domain : existing?.domain ?? '',
    version: gvk.version,
    kind: gvk.kind,
    ...(gvk.plural !== pluralize(gvk.kind) ? { plural: gvk.plural } : {}),
    ...(typesPath !== undefined ? { path: typesPath } : origin.type === 'external' ? { path: origin.typesImport } : {}),
    ...(existing?.api || o.resource ? { api: { crdVersion: 'v1' as const, namespaced } } : {}),
    ...(existing?.controller || (o.controller && !o.controllerName) ? { controller: true } : {}),
    ...(controllers.length > 0 ? { controllers } : {}),
    ...(origin.type === 'core' || existing?.core ? { core: true } : {}),
    ...(origin.type === 'external' || existing?.external ? { external: true } : {}),
    ...(existing?.webhooks ? { webhooks: existing.webhooks } : {}),
  };
  const resources = existing ? project.resources.map((r) => (r === existing ? record : r)) : [...project.resources, record];
  saveProject(tree, { ...project, resources });
}

/** An external types module: a package name as given, a project-relative path made relative to `fromDir`. */
function externalImport(fromDir: string, specifier: string): string {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return specifier;
  return importPath(fromDir, posix.normalize(specifier).replace(/\.js$/, '.ts'));
}
