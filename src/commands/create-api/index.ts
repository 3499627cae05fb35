// `opgen create api`: the types module, controller, test, sample, roles and kustomize wiring of one kind,
// then the controller's registration in src/main.ts and the resource's record in PROJECT.
import { posix } from 'node:path';
import type { CommandContext } from '../../common/command-context.js';
import { OpgenError } from '../../diag/diagnostic.js';
import { checkApiVersion, checkDns1035Label, checkDns1123Label, checkDns1123Subdomain, checkKind, pluralize } from '../../naming/index.js';
import { apiDir, controllerDir, loadProject, qualifiedGroup, saveProject, type ProjectConfig, type ResourceConfig } from '../../project/index.js';
import { insertInto, renderPartial, renderTemplates, type Tree } from '../../scaffold/index.js';
import { importPath, kebab, variableName } from '../shared/names.js';
import { sourceHeader, stageAndCommit } from '../shared/run-in-tree.js';

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
}

interface Gvk {
  group: string;
  version: string;
  kind: string;
  plural: string;
}

export async function createApiCommand(ctx: CommandContext, o: CreateApiOptions): Promise<number> {
  const gvk = validateFlags(o);
  stageAndCommit(ctx, o.dryRun, (tree) => {
    const project = loadProject(tree);
    const existing = checkAgainstProject(project, gvk, o);
    scaffold(tree, project, gvk, o, existing);
  });
  if (!o.dryRun) {
    ctx.out('Next: implement your new API and generate the manifests (CRDs, RBAC) with:');
    ctx.out('$ npm run manifests');
  }
  return 0;
}

function validateFlags(o: CreateApiOptions): Gvk {
  const group = required(o.group, '--group', 'cache');
  const version = required(o.version, '--version', 'v1alpha1');
  const kind = required(o.kind, '--kind', 'Memcached');
  const kindProblem = checkKind(kind);
  if (kindProblem) throw new OpgenError(`invalid kind "${kind}": it ${kindProblem}`, { flag: '--kind' });
  if (SCAFFOLD_NAMES.has(kind)) {
    throw new OpgenError(`kind "${kind}" clashes with a name the scaffolded code imports from @opgen/runtime`, { flag: '--kind' }, `choose another kind name, e.g. My${kind}`);
  }
  const groupProblem = checkDns1123Label(group);
  if (groupProblem) throw new OpgenError(`invalid group "${group}": it ${groupProblem}`, { flag: '--group' });
  const versionProblem = checkApiVersion(version);
  if (versionProblem) throw new OpgenError(`invalid version "${version}": it ${versionProblem}`, { flag: '--version' });
  if (o.plural !== undefined) {
    const pluralProblem = checkDns1035Label(o.plural);
    if (pluralProblem) throw new OpgenError(`invalid plural "${o.plural}": it ${pluralProblem}`, { flag: '--plural' });
  }
  if (!o.resource && !o.controller) {
    throw new OpgenError('nothing to create: both --resource and --controller are off', { flag: '--resource' }, 'leave at least one of them on');
  }
  return { group, version, kind, plural: o.plural ?? pluralize(kind) };
}

/** Names the scaffolded types module, controller and test import or declare; a kind of the same name would not compile. */
const SCAFFOLD_NAMES = new Set(['Client', 'Condition', 'GroupVersion', 'ListMeta', 'Manager', 'ObjectMeta', 'ReconcileContext', 'Reconciler', 'Request', 'Result']);

function required(value: string | undefined, flag: string, example: string): string {
  if (value === undefined || value === '') throw new OpgenError('is required', { flag }, `e.g. ${flag} ${example}`);
  if (value.startsWith('-')) throw new OpgenError(`is missing its value (got "${value}")`, { flag }, `e.g. ${flag} ${example}`);
  return value;
}

/** Checks the resource against PROJECT; returns its existing entry, if any. */
function checkAgainstProject(project: ProjectConfig, gvk: Gvk, o: CreateApiOptions): ResourceConfig | undefined {
  const qualified = qualifiedGroup({ group: gvk.group, domain: project.domain });
  const subdomainProblem = checkDns1123Subdomain(qualified);
  if (subdomainProblem) throw new OpgenError(`invalid API group "${qualified}": it ${subdomainProblem}`, { flag: '--group' });

  const existing = project.resources.find((r) => r.group === gvk.group && r.version === gvk.version && r.kind === gvk.kind);
  if (existing && !o.force) {
    const what = o.resource && existing.api ? 'API' : o.controller && existing.controller ? 'controller' : undefined;
    if (what) {
      throw new OpgenError(
        `${what} ${gvk.group}/${gvk.version}, Kind=${gvk.kind} already exists`,
        { flag: '--kind' },
        'pass --force to scaffold it again (its files are overwritten)',
      );
    }
  }
  if (existing && o.plural !== undefined && (existing.plural ?? pluralize(existing.kind)) !== gvk.plural && !o.force) {
    throw new OpgenError(`${gvk.kind} is recorded with plural "${existing.plural ?? pluralize(existing.kind)}"`, { flag: '--plural' });
  }
  const otherGroup = project.resources.find((r) => r.group !== gvk.group);
  if (otherGroup && !project.multigroup) {
    throw new OpgenError(
      `the project's APIs are in group "${otherGroup.group}"; a second group needs a multi-group layout`,
      { flag: '--group' },
      'run `opgen edit --multigroup` first (new APIs then go to src/api/<group>/<version>)',
    );
  }
  if (!o.resource && !existing?.api) {
    throw new OpgenError(`no API ${gvk.group}/${gvk.version}, Kind=${gvk.kind} in this project for the controller to reconcile`, { flag: '--resource' }, 'leave --resource on to create the types as well');
  }
  return existing;
}

function scaffold(tree: Tree, project: ProjectConfig, gvk: Gvk, o: CreateApiOptions, existing: ResourceConfig | undefined): void {
  const qualified = qualifiedGroup({ group: gvk.group, domain: project.domain });
  const kindLower = gvk.kind.toLowerCase();
  const kindFile = kebab(gvk.kind);
  const typesDir = existing?.path ? posix.dirname(existing.path) : apiDir(project, gvk.group, gvk.version);
  const typesPath = existing?.path ?? `${typesDir}/${kindFile}-types.ts`;
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
    controllerName: kindLower,
    typesImport: importPath(ctrlDir, typesPath),
    envtestImport: importPath(ctrlDir, 'test/envtest.ts'),
    controllerImport: importPath('src', `${ctrlDir}/${kindFile}-controller.ts`),
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
    renderTemplates(tree, 'api/controller', { data, placeholders, force: o.force });
    insertInto(tree, 'src/main.ts', 'imports', renderPartial('main-import', data));
    insertInto(tree, 'src/main.ts', 'controllers', renderPartial('main-controller', data));
  }

  const record: ResourceConfig = {
    group: gvk.group,
    domain: project.domain,
    version: gvk.version,
    kind: gvk.kind,
    ...(gvk.plural !== pluralize(gvk.kind) ? { plural: gvk.plural } : {}),
    path: typesPath,
    ...(existing?.api || o.resource ? { api: { crdVersion: 'v1' as const, namespaced } } : {}),
    ...(existing?.controller || o.controller ? { controller: true } : {}),
    ...(existing?.webhooks ? { webhooks: existing.webhooks } : {}),
  };
  const resources = existing ? project.resources.map((r) => (r === existing ? record : r)) : [...project.resources, record];
  saveProject(tree, { ...project, resources });
}
